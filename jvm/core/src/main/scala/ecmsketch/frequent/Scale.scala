package ecmsketch.frequent

import ecmsketch.core.Bounds.satAdd

/** One scale of a frequent-items sketch (docs/design/windowed-top-k.md, "Structure"): blocks of
  * `lambda` units per key, a Misra-Gries table of at most `k` partial counts, and the total count in
  * blocks of `lambda` units too.
  *
  * Entries, in timestamp order, are (ts, span, key, w, dec): `w` units of `key` (or of the total,
  * key [[Scale.Total]]) that arrived in [span, ts]; the entry was made when its last unit arrived,
  * at `ts`. A total entry's `dec` is the decrement amount since the previous total entry. Units of
  * a key go to entries first-in first-out, so the entries of one key from one stream cover
  * disjoint time spans. The partial counts (residuals) are (key, r, span): r units that arrived
  * in [span, now]. `pendDec` is the decrement amount since the last total entry; `totR`/`totSpan`
  * the total's units not yet in a total entry. `dropped` is the newest timestamp the horizon rule
  * removed: the scale answers every range whose first timestamp is after it.
  */
private[frequent] final class Scale(val lambda: Long, val k: Int) {
  import Scale._

  var ets: Array[Long] = new Array[Long](16)
  var espan: Array[Long] = new Array[Long](16)
  var ew: Array[Long] = new Array[Long](16)
  var edec: Array[Long] = new Array[Long](16)
  var ekey: Array[Int] = new Array[Int](16)
  var start = 0
  var end = 0
  /** Sum of the weights of the total entries held. */
  var ringTotal = 0L
  var dropped: Long = Long.MinValue
  // cache of the total weight at the oldest timestamp held (valid while `oldValid`)
  private var oldValid = false
  private var oldTs = 0L
  private var oldG = 0L

  // the Misra-Gries table of partial counts: slots 0 until rn, and a key id -> slot map
  var rKey: Array[Int] = new Array[Int](math.min(k, 16))
  var rW: Array[Long] = new Array[Long](math.min(k, 16))
  var rSpan: Array[Long] = new Array[Long](math.min(k, 16))
  var rn = 0
  // slot of each key id in the table (-1: none), indexed by id
  private var slotOf: Array[Int] = Array.fill(16)(-1)
  @inline private def slotFor(id: Int): Int = if (id < slotOf.length) slotOf(id) else -1
  private def setSlot(id: Int, v: Int): Unit = {
    if (id >= slotOf.length) {
      val n = math.max(id + 1, slotOf.length * 2)
      val a = java.util.Arrays.copyOf(slotOf, n)
      java.util.Arrays.fill(a, slotOf.length, n, -1)
      slotOf = a
    }
    slotOf(id) = v
  }

  var totR = 0L
  var totSpan = 0L
  var pendDec = 0L

  def size: Int = end - start

  /** Partial counts above 0 (a slot at 0 waits for the next purge). */
  def liveResiduals: Int = { var n = 0; var i = 0; while (i < rn) { if (rW(i) > 0) n += 1; i += 1 }; n }

  private def append(ts: Long, span: Long, key: Int, w: Long, dec: Long): Unit = {
    if (end == ets.length) {
      if (start > 0 && start * 2 >= end) compactRing()
      else {
        val n = ets.length * 2
        ets = java.util.Arrays.copyOf(ets, n); espan = java.util.Arrays.copyOf(espan, n)
        ew = java.util.Arrays.copyOf(ew, n); edec = java.util.Arrays.copyOf(edec, n); ekey = java.util.Arrays.copyOf(ekey, n)
      }
    }
    ets(end) = ts; espan(end) = span; ekey(end) = key; ew(end) = w; edec(end) = dec
    end += 1
    if (key == Total) {
      ringTotal += w
      if (oldValid && ts == oldTs) oldG += w
    }
  }

  private def compactRing(): Unit = {
    val n = end - start
    System.arraycopy(ets, start, ets, 0, n); System.arraycopy(espan, start, espan, 0, n)
    System.arraycopy(ew, start, ew, 0, n); System.arraycopy(edec, start, edec, 0, n)
    System.arraycopy(ekey, start, ekey, 0, n)
    start = 0; end = n
  }

  /** Appends an entry as is (merges and decoding; the caller keeps timestamp order and references). */
  def appendRaw(ts: Long, span: Long, key: Int, w: Long, dec: Long): Unit = append(ts, span, key, w, dec)

  /** Makes room for `more` entries after the last (before [[appendRaw]]s whose number is known). */
  def reserve(more: Int): Unit = {
    val need = end.toLong + more
    if (need > ets.length) {
      val n = math.min(Int.MaxValue - 8L, math.max(need, ets.length * 2L)).toInt
      ets = java.util.Arrays.copyOf(ets, n); espan = java.util.Arrays.copyOf(espan, n)
      ew = java.util.Arrays.copyOf(ew, n); edec = java.util.Arrays.copyOf(edec, n); ekey = java.util.Arrays.copyOf(ekey, n)
    }
  }

  /** Cuts `c + w` units (c carried since `span`, w arriving at `ts`) into entries of whole blocks:
    * one entry holding the carried units and the new units that complete their blocks (span `span`),
    * one holding the rest of the blocks (all arrived at ts, span ts). Returns the units left over.
    */
  private def cut(key: Int, ts: Long, span: Long, c: Long, w: Long, dec: Long): Long = {
    val sum = c + w
    val blocks = sum & ~(lambda - 1) // lambda is a power of two
    if (blocks == 0) return sum
    if (c > 0) {
      // c rounded up to whole blocks, at most `blocks` (c + lambda - 1 cannot wrap when c < blocks:
      // a crafted partial count can be near 2^63)
      val a = if (c >= blocks) blocks else math.min(blocks, (c + lambda - 1) & ~(lambda - 1))
      append(ts, span, key, a, dec)
      if (blocks > a) append(ts, ts, key, blocks - a, 0L)
    } else append(ts, ts, key, blocks, dec)
    sum - blocks
  }

  /** Adds `w` > 0 units of the total at `ts`. */
  def addTotal(ts: Long, w: Long): Unit = {
    val c = totR
    val s = if (c > 0) totSpan else ts
    val dec = pendDec
    val left = cut(Total, ts, s, c, w, dec)
    if (left != c + w) pendDec = 0L // an entry was made: it carries the decrements
    totR = left
    totSpan = if (left == 0) 0L else if (left > w) s else ts
  }

  /** Adds `w` > 0 units of key `id` at `ts`: blocks, then the partial count (Misra-Gries). */
  def addKey(id: Int, ts: Long, w: Long): Unit = {
    val slot = slotFor(id)
    if (slot >= 0) {
      val c = rW(slot)
      val s = rSpan(slot)
      val left = cut(id, ts, s, c, w, 0L)
      if (left == 0) removeSlot(slot)
      else { rW(slot) = left; if (left <= w) rSpan(slot) = ts }
    } else {
      val left = cut(id, ts, ts, 0L, w, 0L)
      if (left > 0) insert(id, ts, left)
    }
  }

  /** Removes slot `j` (its count reached 0): the last slot moves into it. */
  private def removeSlot(j: Int): Unit = {
    val id = rKey(j)
    val last = rn - 1
    if (j != last) { rKey(j) = rKey(last); rW(j) = rW(last); rSpan(j) = rSpan(last); slotOf(rKey(j)) = j }
    slotOf(id) = -1
    rn = last
  }

  /** A new partial count `w` of `id` (not in the table); when the table is full, every count and
    * the new one lose min(w, smallest count) (the Misra-Gries decrement, recorded in `pendDec`).
    */
  private def insert(id: Int, ts: Long, w0: Long): Unit = {
    var w = w0
    if (rn == k) {
      var mn = Long.MaxValue
      var i = 0
      while (i < rn) { if (rW(i) < mn) mn = rW(i); i += 1 }
      val d = math.min(mn, w)
      i = 0
      while (i < rn) { rW(i) -= d; i += 1 }
      w -= d
      pendDec += d
      purgeZeros()
    }
    if (w > 0) {
      if (rn == rKey.length) {
        val n = math.min(k, rKey.length * 2)
        rKey = java.util.Arrays.copyOf(rKey, n); rW = java.util.Arrays.copyOf(rW, n); rSpan = java.util.Arrays.copyOf(rSpan, n)
      }
      rKey(rn) = id; rW(rn) = w; rSpan(rn) = ts
      setSlot(id, rn)
      rn += 1
    }
  }

  /** Removes the partial counts at 0 in one pass (their keys lose a reference). */
  private def purgeZeros(): Unit = {
    var j = 0
    var i = 0
    while (i < rn) {
      if (rW(i) > 0) { rKey(j) = rKey(i); rW(j) = rW(i); rSpan(j) = rSpan(i); slotOf(rKey(j)) = j; j += 1 }
      else slotOf(rKey(i)) = -1
      i += 1
    }
    rn = j
  }

  /** Sets the partial counts (decoding and merging); references are the caller's. */
  def setResiduals(keys: Array[Int], ws: Array[Long], spans: Array[Long], n: Int): Unit = {
    rKey = keys; rW = ws; rSpan = spans; rn = n
    var i = 0
    while (i < n) { setSlot(rKey(i), i); i += 1 }
  }

  /** Weight of the total entries at the oldest timestamp held. */
  private def oldestGroupTotal: Long = {
    val t = ets(start)
    if (!oldValid || oldTs != t) {
      var i = start; var g = 0L
      while (i < end && ets(i) == t) { if (ekey(i) == Total) g += ew(i); i += 1 }
      oldTs = t; oldG = g; oldValid = true
    }
    oldG
  }

  /** Whether the horizon rule drops the oldest timestamp: the total entries after it hold at
    * least `horizon` units.
    */
  def overHorizon(horizon: Long): Boolean = end > start && ringTotal - oldestGroupTotal >= horizon

  /** Drops every entry at the oldest timestamp (horizon rule; it is recorded in `dropped`). */
  def dropOldest(): Unit = {
    val t = ets(start)
    dropWhile(t)
    if (t > dropped) dropped = t
  }

  /** Drops the entries with ts <= `cut` (the window rule: no range reaches them). */
  def dropWhile(cut: Long): Unit = {
    while (end > start && ets(start) <= cut) {
      if (ekey(start) == Total) ringTotal -= ew(start)
      start += 1
      oldValid = false
    }
    if (start == end) { start = 0; end = 0 }
  }

  /** A copy for the next scale (twice the block size), with its own references. */
  def copyAs(lambda2: Long): Scale = {
    val s = new Scale(lambda2, k)
    val n = end - start
    s.ets = java.util.Arrays.copyOfRange(ets, start, end); s.espan = java.util.Arrays.copyOfRange(espan, start, end)
    s.ew = java.util.Arrays.copyOfRange(ew, start, end); s.edec = java.util.Arrays.copyOfRange(edec, start, end)
    s.ekey = java.util.Arrays.copyOfRange(ekey, start, end)
    if (n == 0) { s.ets = new Array[Long](16); s.espan = new Array[Long](16); s.ew = new Array[Long](16); s.edec = new Array[Long](16); s.ekey = new Array[Int](16) }
    s.start = 0; s.end = n; s.ringTotal = ringTotal; s.dropped = dropped
    s.setResiduals(java.util.Arrays.copyOf(rKey, math.max(rn, 1)), java.util.Arrays.copyOf(rW, math.max(rn, 1)),
      java.util.Arrays.copyOf(rSpan, math.max(rn, 1)), rn)
    s.totR = totR; s.totSpan = totSpan; s.pendDec = pendDec
    s
  }

  /** Index of the first entry with ts >= t (binary search; entries are in timestamp order). */
  def firstAtOrAfter(t: Long): Int = {
    var lo = start; var hi = end
    while (lo < hi) { val mid = (lo + hi) >>> 1; if (ets(mid) < t) lo = mid + 1 else hi = mid }
    lo
  }

  // The query sums below stop at Long.MaxValue (Bounds.satAdd): each weight is at most the sketch's
  // total weight, but their sums (a key's entries and partial count, the decrements) may pass 2^63 - 1
  // on crafted bytes, and an upper bound must not wrap to a negative one.

  /** Bounds on the total weight in [t0, now] and on the decrement amount there: (lo, hi, dec). */
  def totals(t0: Long): (Long, Long, Long) = {
    var lo = 0L; var hi = 0L; var dec = pendDec
    var i = firstAtOrAfter(t0)
    while (i < end) {
      if (ekey(i) == Total) {
        hi = satAdd(hi, ew(i)); dec = satAdd(dec, edec(i))
        if (espan(i) >= t0) lo = satAdd(lo, ew(i))
      }
      i += 1
    }
    hi = satAdd(hi, totR)
    if (totR > 0 && totSpan >= t0) lo = satAdd(lo, totR)
    (lo, hi, dec)
  }

  /** Adds the bounds of every key in [t0, now] into `lo`/`hi` (indexed by key id; `seen` marks them). */
  def keyBounds(t0: Long, lo: Array[Long], hi: Array[Long], seen: Array[Boolean]): Unit = {
    var i = firstAtOrAfter(t0)
    while (i < end) {
      val key = ekey(i)
      if (key != Total) {
        hi(key) = satAdd(hi(key), ew(i))
        if (espan(i) >= t0) lo(key) = satAdd(lo(key), ew(i))
        seen(key) = true
      }
      i += 1
    }
    var j = 0
    while (j < rn) {
      val key = rKey(j)
      if (rW(j) > 0) {
        hi(key) = satAdd(hi(key), rW(j))
        if (rSpan(j) >= t0) lo(key) = satAdd(lo(key), rW(j))
        seen(key) = true
      }
      j += 1
    }
  }

  /** The larger of this scale's two sums: its key entries, partial counts and decrements (with the
    * pending one), and its totals (with the residual); -1 when one passes 2^63 - 1.
    */
  def largestSum: Long = {
    var keys = pendDec; var tots = totR; var ok = true
    def add(a: Long, b: Long): Long = { val r = a + b; if (r < 0) ok = false; r }
    var i = start
    while (i < end) {
      if (ekey(i) == Total) { tots = add(tots, ew(i)); keys = add(keys, edec(i)) } else keys = add(keys, ew(i))
      i += 1
    }
    var j = 0
    while (j < rn) { if (rW(j) > 0) keys = add(keys, rW(j)); j += 1 }
    if (ok) math.max(keys, tots) else -1L
  }

  /** Bounds of one key in [t0, now] (without the decrement term): (lo, hi). */
  def keyBound(id: Int, t0: Long): (Long, Long) = {
    var lo = 0L; var hi = 0L
    var i = firstAtOrAfter(t0)
    while (i < end) {
      if (ekey(i) == id) { hi = satAdd(hi, ew(i)); if (espan(i) >= t0) lo = satAdd(lo, ew(i)) }
      i += 1
    }
    val slot = slotFor(id)
    if (slot >= 0 && rW(slot) > 0) { hi = satAdd(hi, rW(slot)); if (rSpan(slot) >= t0) lo = satAdd(lo, rW(slot)) }
    (lo, hi)
  }

}

private[frequent] object Scale {
  /** The key id of total entries. */
  final val Total = -1
}
