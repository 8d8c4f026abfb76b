package ecmsketch.rwave

import ecmsketch.core.{Params, SketchException}

/** The merge of randomized waves ([[RandWave.merge]]): per instance and level, a k-way heap merge
  * of the inputs' levels from the newest end.
  */
private[rwave] object RwMerge {
  import RandWave._

  def merge(inputs: Seq[RandWave], config: RwConfig): RandWave = {
    SketchException.require(inputs.nonEmpty, "randomized-wave merge needs at least one wave")
    inputs.foreach { w =>
      SketchException.require(w != null, "randomized-wave merge: null input")
      Params.requireSame("randomized waves", config.diffs(w.config))
    }
    val out = new RandWave(config)
    out.salt = mergedSalt(inputs)
    out._lastTs = inputs.iterator.map(_.lastTs).max
    inputs.foreach { w => w.normalize(); w.thaw() }
    val srcs = inputs.filter(_.level0.n > 0).toArray
    if (srcs.isEmpty) return out
    val buf = new Array[Level](srcs.length)
    val cap = config.capacity
    val hb = out.hasBound; val b = out.bound
    val pos = new Array[Int](srcs.length)
    val heap = new Array[Int](srcs.length)
    val set = scratch.get().set
    // max-heap of runs by their current (ts, id)
    @inline def greater(x: Int, y: Int): Boolean = {
      val tx = buf(x).ts(pos(x)); val ty = buf(y).ts(pos(y))
      tx > ty || (tx == ty && buf(x).ids(pos(x)) > buf(y).ids(pos(y)))
    }
    def siftDown(start: Int, size: Int): Unit = {
      var i = start
      var done = false
      while (!done) {
        val l = 2 * i + 1
        if (l >= size) done = true
        else {
          var c = l
          if (l + 1 < size && greater(heap(l + 1), heap(l))) c = l + 1
          if (greater(heap(c), heap(i))) { val t = heap(c); heap(c) = heap(i); heap(i) = t; i = c } else done = true
        }
      }
    }
    /** k-way merge from the newest end: pops (ts, id) in decreasing order, keeps the first (latest)
      * sighting of each id, stops at expired items or after `capacity` ids. Work O(C log k).
      */
    def mergeLevel(get: RandWave => Level): Level = {
      var k = 0
      var total = 0L
      var j = 0
      while (j < srcs.length) {
        val lv = get(srcs(j))
        if (lv != null && lv.n > 0) { buf(k) = lv; pos(k) = lv.n - 1; heap(k) = k; k += 1; total += lv.n }
        j += 1
      }
      if (k == 0) return null
      val outN = math.min(cap.toLong, total).toInt
      val rts = new Array[Long](math.max(4, outN)); val rids = new Array[Long](math.max(4, outN))
      var size = k
      var h = size / 2 - 1
      while (h >= 0) { siftDown(h, size); h -= 1 }
      set.reset(outN)
      var w = outN
      var stop = false
      while (!stop && size > 0 && w > 0) {
        val top = heap(0)
        val t = buf(top).ts(pos(top)); val id = buf(top).ids(pos(top))
        if (hb && t <= b) stop = true
        else {
          if (set.add(id)) { w -= 1; rts(w) = t; rids(w) = id }
          pos(top) -= 1
          if (pos(top) < 0) { size -= 1; heap(0) = heap(size) }
          if (size > 0) siftDown(0, size)
        }
      }
      val n = outN - w
      if (n == 0) return null
      if (w > 0) { System.arraycopy(rts, w, rts, 0, n); System.arraycopy(rids, w, rids, 0, n) }
      val res = new Level(0)
      res.ts = rts; res.ids = rids; res.n = n
      res
    }
    val l0 = mergeLevel(_.level0)
    out.level0 = if (l0 == null) new Level(4) else l0
    var i = 0
    val r = config.instances
    while (i < r) {
      var top = 0
      srcs.foreach { w => if (w.levels != null && w.levels(i) != null) top = math.max(top, w.levels(i).length - 1) }
      var l = 1
      while (l <= top) {
        val li = l; val ii = i
        val m = mergeLevel(_.levelAt(ii, li))
        if (m != null) out.levelsOf(i, l)(l) = m
        l += 1
      }
      i += 1
    }
    out.canonical = true
    out
  }
}
