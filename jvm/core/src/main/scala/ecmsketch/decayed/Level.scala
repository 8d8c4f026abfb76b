package ecmsketch.decayed

import ecmsketch.core.LongHashMap

/** A level S_i (CTX §3.2, Algorithms 1-3): at most tau entries, those with the largest keys, and t_i, the largest
  * key discarded (`discarded` false while nothing was).
  *
  * What a level holds is a function of the set of entries offered to it and of the t_i raised on it,
  * never of their order (Lemma 3.2, extended to repeated ids). Per id, one *version* counts: the one
  * with the largest key (then the largest timestamp, weight and value: a total order, so two sites
  * holding different versions of an id keep the same one). Over those versions F and the raised
  * values R,
  *  - t_i = max(R, the (tau + 1)-th largest key of F) (only R while F has at most tau keys),
  *  - the level holds the versions of F whose key is > t_i, and `discarded` is R nonempty or |F| > tau.
  * This is the overflow rule of CTX §3.2 (an overflow discards every entry with the smallest key, ties
  * together): the (tau + 1)-th largest key is the smallest key k with at most tau keys above it.
  *
  * Storage is primitive and lazy. An offer whose key is above the current t_i is appended to one flat
  * array (no lookup, no heap); when it holds 2 tau entries, or when anything reads the
  * level, [[compact]] keeps the winning version of each id (a [[LongHashMap]] from id to slot),
  * finds the (tau + 1)-th largest key ([[Level.select]]), raises t_i to it and keeps what
  * lies above. Each compaction costs O(tau) for at least tau offers. The t_i an offer is tested
  * against is never above the final one (an order statistic of a subset of F, each key at most its
  * id's final version), so a refused offer is one the set rule discards too, and compaction
  * reaches the set rule's state whatever the order: the model test in `DecayedSuite` checks this
  * against the rule above computed from scratch.
  */
final class Level(val tau: Int) {
  private var disc: Boolean = false
  private var ti: Long = Long.MinValue
  /** Slots 0..n-1 are held; 0..clean-1 are compacted (distinct ids, keys > t_i, at most tau). */
  private var n = 0
  private var clean = 0
  private var cap = 0
  private val limit: Int = math.max(2 * tau, 16)
  /** Slot s is data(6 s until 6 s + 6): id, weight, value (its bits), ts, key, and the RangeSample of the
    * undecayed range (general sketch), or [[Level.Unresolved]] until a query needs it. One array, so
    * an offer writes one cache line.
    */
  private var data: Array[Long] = Array.emptyLongArray
  @inline private def ids(s: Int): Long = data(6 * s)
  @inline private def ws(s: Int): Long = data(6 * s + 1)
  @inline private def vs(s: Int): Double = java.lang.Double.longBitsToDouble(data(6 * s + 2))
  @inline private def ts(s: Int): Long = data(6 * s + 3)
  @inline private def keys(s: Int): Long = data(6 * s + 4)
  @inline private def rss(s: Int): Long = data(6 * s + 5)

  /** Where the level publishes its refusal threshold (see [[attach]]); null while not attached. */
  private var thresholds: Array[Long] = null
  private var thresholdSlot = 0

  /** Publishes the level's threshold in `a(slot)` from now on: t_i once the level discarded
    * anything, Long.MinValue before (the sketch's insert loop scans a copy's thresholds, one
    * primitive array, instead of its levels; a level with t_i = Long.MinValue needs [[admits]]).
    */
  private[decayed] def attach(a: Array[Long], slot: Int): Unit = { thresholds = a; thresholdSlot = slot; publish() }

  private def publish(): Unit = if (thresholds != null) thresholds(thresholdSlot) = if (disc) ti else Long.MinValue

  /** Whether the level ever discarded an entry or had t_i raised (compacts first). */
  def discarded: Boolean = { compact(); disc }
  /** t_i, the largest key discarded or raised (Long.MinValue while nothing was; compacts first). */
  def tI: Long = { compact(); ti }
  /** Entries held after compaction. */
  def size: Int = { compact(); n }

  /** Whether an entry with this key could be kept now (the final t_i can only be higher). */
  @inline def admits(key: Long): Boolean = !disc || key > ti

  /** Offers an entry (see the class doc: kept if its key stays above t_i and it is its id's winning version). */
  def offer(e: Entry): Unit = offer(e.id, e.w, e.v, e.t, e.key, e.rs)

  /** [[offer]] of the entry's fields: appended when its key is above the current t_i, else refused. */
  def offer(id: Long, w: Long, v: Double, t: Long, key: Long, rs: Long): Unit =
    if (admits(key)) {
      if (n == cap) {
        if (n >= limit) compact()
        if (n == cap) grow()
        if (!admits(key)) return
      }
      val o = 6 * n
      val d = data
      d(o) = id; d(o + 1) = w; d(o + 2) = java.lang.Double.doubleToRawLongBits(v); d(o + 3) = t; d(o + 4) = key; d(o + 5) = rs
      n += 1
    }

  /** Offers every entry `o` holds (a merge). */
  def absorb(o: Level): Unit = {
    o.compact()
    var s = 0
    while (s < o.n) { offer(o.ids(s), o.ws(s), o.vs(s), o.ts(s), o.keys(s), o.rss(s)); s += 1 }
  }

  /** Raises t_i (a merge, a decode) and drops what it covers. */
  def raise(t: Long): Unit = if (!disc || t > ti) { disc = true; ti = t; clean = 0; publish() }

  /** Whether an entry of this id is held (compacts first; a linear scan, for tests and checks). */
  def contains(id: Long): Boolean = slotOf(id) >= 0

  /** The entry with this id (null if none). */
  def get(id: Long): Entry = { val s = slotOf(id); if (s < 0) null else entryAt(s) }

  private def slotOf(id: Long): Int = {
    compact()
    var s = 0
    while (s < n && ids(s) != id) s += 1
    if (s < n) s else -1
  }

  private def entryAt(s: Int): Entry = new Entry(ids(s), ws(s), vs(s), ts(s), keys(s), rss(s))

  /** The entries in id order (the encoding's order). */
  def entries: Array[Entry] = {
    compact()
    val a = new Array[Entry](n)
    var s = 0
    while (s < n) { a(s) = entryAt(s); s += 1 }
    java.util.Arrays.sort(a, Level.ById)
    a
  }

  /** Fills in every unresolved RangeSample with `rs(id, w)` (the general sketch, before a query). */
  def resolve(rs: (Long, Long) => Long): Unit = {
    compact()
    var s = 0
    while (s < n) { if (rss(s) == Level.Unresolved) data(6 * s + 5) = rs(ids(s), ws(s)); s += 1 }
  }

  private def grow(): Unit = {
    val c = if (cap == 0) math.min(16, limit) else math.min(2 * cap, limit)
    data = java.util.Arrays.copyOf(data, 6 * c)
    cap = c
  }

  /** Whether the version in slot s beats the one in slot r (largest key, then ts, weight, value). */
  private def beats(s: Int, r: Int): Boolean =
    if (keys(s) != keys(r)) keys(s) > keys(r)
    else if (ts(s) != ts(r)) ts(s) > ts(r)
    else if (ws(s) != ws(r)) ws(s) > ws(r)
    else java.lang.Double.compare(vs(s), vs(r)) > 0

  /** Brings the level to the set rule's state for what it has been offered (see the class doc). */
  def compact(): Unit = if (clean != n) {
    val sc = Level.scratch.get()
    val live = sc.live(n)
    // 1. one version per id: the winner of each id keeps its slot live
    val table = sc.slotOfId
    table.reset(n)
    var s = 0
    while (s < n) {
      val r = table.putIfAbsent(ids(s), s)
      if (r == LongHashMap.Missing) live(s) = true
      else if (beats(s, r)) { table.put(ids(s), s); live(r) = false; live(s) = true }
      else live(s) = false
      s += 1
    }
    if (table.capacity > 2 * Level.Keep) table.reset(0) // a huge level's table is not kept
    // 2. the overflow rule: t_i = max(t_i, the (tau + 1)-th largest key) when more than tau remain
    var m = 0
    val ks = sc.keys(n)
    s = 0
    while (s < n) { if (live(s) && (!disc || keys(s) > ti)) { ks(m) = keys(s); m += 1 }; s += 1 }
    if (m > tau) {
      val t = Level.select(ks, m, m - tau - 1)
      if (!disc || t > ti) ti = t
      disc = true
      publish()
    }
    // 3. keep the live entries above t_i, in slot order
    var o = 0
    s = 0
    while (s < n) {
      if (live(s) && (!disc || keys(s) > ti)) {
        if (o != s) {
          val d = data; val a = 6 * s; val b = 6 * o
          d(b) = d(a); d(b + 1) = d(a + 1); d(b + 2) = d(a + 2); d(b + 3) = d(a + 3); d(b + 4) = d(a + 4); d(b + 5) = d(a + 5)
        }
        o += 1
      }
      s += 1
    }
    n = o
    clean = n
  }
}

object Level {
  /** The RangeSample of an entry the general sketch has not needed yet. */
  final val Unresolved: Long = -1L

  val ById: java.util.Comparator[Entry] = (x: Entry, y: Entry) => java.lang.Long.compare(x.id, y.id)

  /** Per-thread scratch of [[Level.compact]], kept while small (a compaction of a huge level
    * allocates, and its id table is dropped after it).
    */
  private final class Scratch {
    /** The slot of each id's winning version (reset per compaction; it shrinks when far too large). */
    val slotOfId = new LongHashMap(512, withValues = true)
    private var l = new Array[Boolean](512)
    private var k = new Array[Long](512)
    def live(n: Int): Array[Boolean] = if (n <= l.length) l else { val a = new Array[Boolean](n); if (n <= Keep) l = a; a }
    def keys(n: Int): Array[Long] = if (n <= k.length) k else { val a = new Array[Long](n); if (n <= Keep) k = a; a }
  }
  private final val Keep = 1 << 16
  private val scratch: ThreadLocal[Scratch] = ThreadLocal.withInitial(() => new Scratch)

  /** The k-th smallest (0-based) of a(0 until m), reordering a. Ranges above [[SampleAbove]] keys
    * are cut by Floyd-Rivest steps: a recursive selection inside the stretch of the array around
    * rank k gives a pivot close to the answer, and one partition keeps a small range around it
    * (about 1.5 m comparisons in all, against about 3.4 m for a random pivot at the median rank, the
    * usual k here). What remains goes to a quickselect with a three-way partition (runs of equal
    * keys, such as many rows of one timestamp, cost one pass) and a pseudo-random pivot. The stretch
    * is a fair sample for a random or nearly sorted order (what time order and shuffles give); an
    * order that keeps misleading it would make each cut drop little, so after `maxCuts` cuts the
    * range is sorted (O(m log m) whatever the order).
    */
  private[decayed] def select(a: Array[Long], m: Int, k: Int, maxCuts: Int = MaxCuts): Long = {
    selectIn(a, 0, m - 1, k, maxCuts)
    a(k)
  }

  private final val SampleAbove = 600
  /** Floyd-Rivest cuts of one range before it is sorted (a fair sample needs one or two). */
  private final val MaxCuts = 16

  /** Puts the k-th smallest of a(left..right) at a(k), smaller-or-equal keys before it and
    * greater-or-equal after it (within left..right).
    */
  private def selectIn(a: Array[Long], left0: Int, right0: Int, k: Int, maxCuts: Int): Unit = {
    var left = left0; var right = right0
    var cuts = 0
    while (right - left > SampleAbove) {
      if (cuts >= maxCuts) { java.util.Arrays.sort(a, left, right + 1); return }
      cuts += 1
      val n = (right - left + 1).toDouble
      val i = (k - left + 1).toDouble
      val z = math.log(n)
      val s = 0.5 * math.exp(2.0 * z / 3.0)
      val sd = 0.5 * math.sqrt(z * s * (n - s) / n) * math.signum(i - n / 2.0)
      val newLeft = math.max(left, (k - i * s / n + sd).toInt)
      val newRight = math.min(right, (k + (n - i) * s / n + sd).toInt)
      selectIn(a, newLeft, newRight, k, maxCuts)
      // partition around t = a(k), the sample's k-th
      val t = a(k)
      var p = left; var q = right
      swap(a, left, k)
      if (a(right) > t) swap(a, right, left)
      while (p < q) {
        swap(a, p, q); p += 1; q -= 1
        while (a(p) < t) p += 1
        while (a(q) > t) q -= 1
      }
      if (a(left) == t) swap(a, left, q)
      else { q += 1; swap(a, q, right) }
      // a(q) = t, a(left until q) <= t <= a(q + 1 to right)
      if (q == k) return
      if (q < k) left = q + 1 else right = q - 1
    }
    quickselect(a, left, right, k)
  }

  /** The k-th smallest of a(lo..hi) put at a(k): three-way partitions around pseudo-random pivots. */
  private def quickselect(a: Array[Long], lo0: Int, hi0: Int, k: Int): Unit = {
    var lo = lo0; var hi = hi0
    var seed = 0x9E3779B97F4A7C15L ^ (hi - lo)
    while (lo < hi) {
      seed = seed * 6364136223846793005L + 1442695040888963407L
      val p = a(lo + ((seed >>> 33) % (hi - lo + 1)).toInt)
      var lt = lo; var i = lo; var gt = hi
      while (i <= gt) {
        val x = a(i)
        if (x < p) { a(i) = a(lt); a(lt) = x; lt += 1; i += 1 }
        else if (x > p) { a(i) = a(gt); a(gt) = x; gt -= 1 }
        else i += 1
      }
      if (k < lt) hi = lt - 1
      else if (k > gt) lo = gt + 1
      else return // a(lt..gt) all equal p, k among them
    }
  }

  @inline private def swap(a: Array[Long], i: Int, j: Int): Unit = { val x = a(i); a(i) = a(j); a(j) = x }
}
