package ecmsketch.rwave

import ecmsketch.core.{ByteReader, ByteWriter, CellOps, LongHashMap, SketchException, WindowCounter, Windows}

/** Randomized-wave cells (cell kind 3). Merges are lossless, so the bound does not grow with depth.
  *
  * Encoding of one cell (docs/design/rwave.md, "Randomized-wave cell"); an item is (varint ts delta,
  * 8-byte little-endian id), the first delta of a list from `base`, the others from the previous item:
  * {{{
  * varint n0              items of the shared level 0 (0 = empty cell, nothing follows), <= capacity
  * n0 items               level 0, strictly increasing by (ts, id)
  * if n0 == capacity, for each instance i = 0 .. r-1:
  *   varint m_i           items of instance i's levels 1..60 that are not in level 0
  *   m_i items            strictly increasing by (ts, id), all before level 0's first item
  * }}}
  * The decoder rebuilds level l >= 1 of instance i as the `capacity` largest (ts, id) among level 0
  * and instance i's items with h_i >= l (the state is canonical, see [[RandWave]]), and rejects
  * any item that lands in no level.
  *
  * `stored` is the number of instances the bytes to read hold (r above): the config's, or more for
  * sketches written by version 0.1.0 ([[RwConfig.legacyInstances]]). The reader then checks every
  * stored instance's items as a list and keeps the first `config.instances` instances: instance i
  * has the same level hash under both plans, so that is exactly the wave this version builds from
  * the same stream. Families compare by config alone.
  */
final class RwCells(val config: RwConfig, stored: Int) extends CellOps {
  def this(config: RwConfig) = this(config, config.instances)
  SketchException.require(stored >= config.instances && stored <= RwConfig.MaxInstances,
    s"randomized-wave cells to read hold $stored instances, fewer than ${config.instances} or more than ${RwConfig.MaxInstances}")
  def id: Int = RwCellKind.id
  def name: String = "rwave"
  def epsilon: Double = config.epsilon
  def window: Long = config.window
  def create(): WindowCounter = new RandWave(config)
  override def create(salt: Long): WindowCounter = RandWave.salted(config, salt)

  def merge(cells: Seq[WindowCounter]): WindowCounter = {
    val ws = cells.collect { case w: RandWave if w != null => w }
    if (ws.isEmpty) null
    else {
      val m = RandWave.merge(ws, config)
      if (m.isEmpty) null else m
    }
  }

  def errorBound(depth: Int): Double = config.epsilon

  def write(c: WindowCounter, out: ByteWriter, base: Long): Unit = c match {
    case null => out.putVarLong(0)
    case w: RandWave => RwCells.writeWave(w, out, base)
    case other => throw new SketchException(s"cell of kind ${other.getClass.getSimpleName} in a randomized-wave sketch")
  }

  /** Reads a cell written by [[write]]; null for an empty cell, or one whose items have all expired
    * at `lastTs` (the clock of the decoded wave).
    */
  def read(in: ByteReader, base: Long, lastTs: Long): WindowCounter = RwCells.readWave(config, stored, in, base, lastTs)

  /** [[RwCellKind.versionFor]] the config, for every cell (null included). */
  override def formatVersion(c: WindowCounter): Int = RwCellKind.versionFor(config)

  override def equals(o: Any): Boolean = o match { case e: RwCells => e.config == config; case _ => false }
  override def hashCode: Int = config.hashCode
}

object RwCells {
  /** Smallest encoded size of an item: a one-byte varint delta and the 8-byte id. */
  private final val MinItemBytes = 9

  private def writeItems(out: ByteWriter, ts: Array[Long], ids: Array[Long], n: Int, base: Long): Unit = {
    var prev = base
    var j = 0
    while (j < n) { out.putVarLong(ts(j) - prev); out.putLong(ids(j)); prev = ts(j); j += 1 }
  }

  private[rwave] def writeWave(w: RandWave, out: ByteWriter, base: Long): Unit = {
    w.trimToSize() // normalizes; an encoded wave is usually finished, so its spare capacity goes
    val l0 = w.level0
    val n0 = l0.n
    out.putVarLong(n0)
    if (n0 == 0) return
    writeItems(out, l0.ts, l0.ids, n0, base)
    if (n0 < w.config.capacity) {
      // every live item is in level 0, and levels 1..60 are its items with h >= l
      if (w.frozenTs == null) w.freeze(new Array[Array[Long]](w.config.instances), new Array[Array[Long]](w.config.instances))
      return
    }
    val r = w.config.instances
    if (w.frozenTs != null) {
      var i = 0
      while (i < r) {
        val ts = w.frozenTs(i)
        val m = if (ts == null) 0 else ts.length
        out.putVarLong(m)
        writeItems(out, ts, w.frozenIds(i), m, base)
        i += 1
      }
      return
    }
    val set = RandWave.scratch.get().set
    set.reset(n0)
    var j = 0
    while (j < n0) { set.add(l0.ids(j)); j += 1 }
    val fts = new Array[Array[Long]](r); val fids = new Array[Array[Long]](r)
    var i = 0
    while (i < r) {
      val (ts, ids, m) = extras(w, i, set)
      out.putVarLong(m)
      writeItems(out, ts, ids, m, base)
      if (m > 0) { fts(i) = java.util.Arrays.copyOf(ts, m); fids(i) = java.util.Arrays.copyOf(ids, m) }
      i += 1
    }
    // what was written is the whole state: keep it in that form until the levels are needed again
    w.freeze(fts, fids)
  }

  /** Items of instance i's levels >= 1 not in level 0 (`inLevel0`), sorted by (ts, id), without duplicates. */
  private def extras(w: RandWave, i: Int, inLevel0: LongHashMap): (Array[Long], Array[Long], Int) = {
    val ls = if (w.levels == null) null else w.levels(i)
    if (ls == null) return (null, null, 0)
    var total = 0
    var runs = 0
    var l = 1
    while (l < ls.length) {
      val lv = ls(l)
      if (lv != null && lv.n > 0) {
        var c = 0; var j = 0
        while (j < lv.n) { if (!inLevel0.contains(lv.ids(j))) c += 1; j += 1 }
        if (c > 0) { total += c; runs += 1 }
      }
      l += 1
    }
    if (total == 0) return (null, null, 0)
    val ts = new Array[Long](total); val ids = new Array[Long](total)
    val starts = new Array[Int](runs + 1)
    var o = 0; var k = 0
    l = 1
    while (l < ls.length) {
      val lv = ls(l)
      if (lv != null && lv.n > 0) {
        val s = o
        var j = 0
        while (j < lv.n) { if (!inLevel0.contains(lv.ids(j))) { ts(o) = lv.ts(j); ids(o) = lv.ids(j); o += 1 }; j += 1 }
        if (o > s) { starts(k) = s; k += 1 }
      }
      l += 1
    }
    starts(k) = o
    val (sts, sids) = if (runs == 1) (ts, ids) else Windows.mergeSortedRuns(ts, ids, starts, runs, total)
    RandWave.sortTieRuns(sts, sids, 0, total)
    // an id present in several levels has the same (latest) ts in each: drop adjacent duplicates
    var m = 0
    var j = 0
    while (j < total) {
      if (m == 0 || sts(j) != sts(m - 1) || sids(j) != sids(m - 1)) { sts(m) = sts(j); sids(m) = sids(j); m += 1 }
      j += 1
    }
    (sts, sids, m)
  }

  private def corrupt(msg: String): Nothing = throw new SketchException(s"corrupt sketch: $msg")

  /** a + delta with delta read as unsigned (timestamps may span more than 2^63). */
  private def addTs(a: Long, delta: Long, what: String): Long = {
    if (java.lang.Long.compareUnsigned(delta, Long.MaxValue - a) > 0) corrupt(s"$what overflows")
    a + delta
  }

  private def readCount(in: ByteReader, what: String, max: Long): Int = {
    val at = in.position
    val n = in.getVarIn(what, 0, max)
    if (n * MinItemBytes > in.remaining)
      corrupt(s"$what = $n at byte $at needs at least ${n * MinItemBytes} bytes, only ${in.remaining} remain")
    n.toInt
  }

  /** Reads n items into ts/ids, checking ts <= lastTs and strictly increasing (ts, id). */
  private def readItems(in: ByteReader, n: Int, base: Long, lastTs: Long, ts: Array[Long], ids: Array[Long], what: String): Unit = {
    var prev = base
    val tsWhat = s"$what timestamp"; val idWhat = s"$what id" // built once, not per item
    var j = 0
    while (j < n) {
      val t = addTs(prev, in.getVarLong(tsWhat), tsWhat)
      if (t > lastTs) corrupt(s"$what timestamp $t after the last timestamp $lastTs")
      val id = in.getLong(idWhat)
      if (j > 0 && t == prev && id <= ids(j - 1))
        corrupt(s"$what ${j} is not after the previous item (items must be strictly increasing by timestamp, then id)")
      ts(j) = t; ids(j) = id; prev = t
      j += 1
    }
  }

  private[rwave] def readWave(config: RwConfig, stored: Int, in: ByteReader, base: Long, lastTs: Long): RandWave = {
    val cap = config.capacity
    val r = config.instances
    val n0 = readCount(in, "randomized-wave level-0 item count", cap)
    if (n0 == 0) return null
    val l0 = new Level(math.max(4, n0))
    readItems(in, n0, base, lastTs, l0.ts, l0.ids, "level-0 item")
    l0.n = n0
    val sc = RandWave.scratch.get()
    val set0 = sc.set
    set0.reset(n0)
    var j = 0
    while (j < n0) { if (!set0.add(l0.ids(j))) corrupt(s"level-0 id ${l0.ids(j)} occurs twice"); j += 1 }
    val w = new RandWave(config)
    w.level0 = l0
    val minTs = l0.ts(0); val minId = l0.ids(0)
    val fts = new Array[Array[Long]](r); val fids = new Array[Array[Long]](r)
    var minTs0 = minTs
    // the instances after the first r (bytes of an older plan) are checked as the older reader
    // checked them (each item in some level of its instance), then left out
    val older = if (stored > r) RwConfig.levelCoefficients(config.seed, stored) else null
    var i = 0
    while (i < stored) {
      var m = 0
      var ets: Array[Long] = null; var eids: Array[Long] = null
      if (n0 == cap) {
        m = readCount(in, s"item count of instance $i", RwConfig.MaxLevel.toLong * cap)
        if (m > 0) {
          ets = new Array[Long](m); eids = new Array[Long](m)
          readItems(in, m, base, lastTs, ets, eids, s"instance $i item")
          val lastT = ets(m - 1); val lastId = eids(m - 1)
          if (!(lastT < minTs || (lastT == minTs && lastId < minId)))
            corrupt(s"instance $i item ${m - 1} is not older than every level-0 item")
          val set = sc.set2
          set.reset(m)
          var k = 0
          while (k < m) {
            if (set0.contains(eids(k))) corrupt(s"instance $i item $k repeats a level-0 id")
            if (!set.add(eids(k))) corrupt(s"instance $i id ${eids(k)} occurs twice")
            k += 1
          }
        }
      }
      if (i < r) {
        if (m > 0) check(w, i, eids, m, l0)
        fts(i) = ets; fids(i) = eids
        if (m > 0 && ets(0) < minTs0) minTs0 = ets(0)
      } else if (m > 0) {
        val a = older(2 * i); val b = older(2 * i + 1)
        check(cap, x => RandWave.levelFor(a, b, x), i, eids, m, l0)
      }
      i += 1
    }
    w.freeze(fts, fids)
    w._lastTs = lastTs
    w.salt = RandWave.decodedSalt(w)
    // cells are written at their own clock: expire what lies before the sketch's window, if anything
    val window = config.window
    val expired = !config.unbounded && lastTs >= Long.MinValue + window && minTs0 <= lastTs - window
    if (expired) { w.canonical = false; w.normalize() }
    if (w.level0.n == 0) null else w
  }

  /** Checks that every one of instance i's items lands in some level: walking the candidates (its
    * items, then level 0; together sorted by (ts, id)) from the newest, level l takes the first
    * `capacity` with h_i >= l. Otherwise the encoding is not canonical.
    */
  private def check(w: RandWave, i: Int, eids: Array[Long], m: Int, l0: Level): Unit =
    check(w.config.capacity, x => w.levelOf(i, x), i, eids, m, l0)

  /** [[check]] for instance i with level function `levelOf` (of a reduced id): also for the
    * instances of an older plan that the reader leaves out.
    */
  private def check(cap: Int, levelOf: Long => Int, i: Int, eids: Array[Long], m: Int, l0: Level): Unit = {
    val cnt = new Array[Int](RwConfig.MaxLevel + 1)
    var j = l0.n - 1
    while (j >= 0) {
      val h = levelOf(ecmsketch.hash.Hashing.modP(l0.ids(j)))
      var l = 1
      while (l <= h) { if (cnt(l) < cap) cnt(l) += 1; l += 1 }
      j -= 1
    }
    j = m - 1
    while (j >= 0) {
      val h = levelOf(ecmsketch.hash.Hashing.modP(eids(j)))
      var used = false
      var l = 1
      while (l <= h) { if (cnt(l) < cap) { cnt(l) += 1; used = true }; l += 1 }
      if (!used) corrupt(s"instance $i item $j belongs to no level (the encoding is not canonical)")
      j -= 1
    }
  }

  /** Rebuilds levels 1..60 of instance i from the candidates (extras, then level 0; together
    * sorted by (ts, id)): level l = the `capacity` newest candidates with h_i >= l. Every extra
    * must land in some level.
    */
  private[rwave] def rebuild(w: RandWave, i: Int, ets: Array[Long], eids: Array[Long], m: Int, l0: Level): Unit = {
    val cap = w.config.capacity
    val total = m + l0.n
    val hs = new Array[Int](total)
    val cnt = new Array[Int](RwConfig.MaxLevel + 1)
    var top = 0
    var j = total - 1
    while (j >= 0) {
      val id = if (j < m) eids(j) else l0.ids(j - m)
      val h = w.levelOf(i, ecmsketch.hash.Hashing.modP(id))
      hs(j) = h
      var used = false
      var l = 1
      while (l <= h) { if (cnt(l) < cap) { cnt(l) += 1; used = true; if (l > top) top = l }; l += 1 }
      if (j < m && !used) corrupt(s"instance $i item $j belongs to no level (the encoding is not canonical)")
      j -= 1
    }
    if (top == 0) return
    val ls = new Array[Level](top + 1)
    val pos = new Array[Int](top + 1)
    var l = 1
    while (l <= top) { if (cnt(l) > 0) { ls(l) = new Level(math.max(4, cnt(l))); ls(l).n = cnt(l); pos(l) = cnt(l) - 1 }; l += 1 }
    j = total - 1
    while (j >= 0) {
      val h = math.min(hs(j), top)
      val t = if (j < m) ets(j) else l0.ts(j - m)
      val id = if (j < m) eids(j) else l0.ids(j - m)
      l = 1
      while (l <= h) {
        val p = pos(l)
        if (p >= 0) { ls(l).ts(p) = t; ls(l).ids(p) = id; pos(l) = p - 1 }
        l += 1
      }
      j -= 1
    }
    if (w.levels == null) w.levels = new Array[Array[Level]](w.config.instances)
    w.levels(i) = ls
  }
}
