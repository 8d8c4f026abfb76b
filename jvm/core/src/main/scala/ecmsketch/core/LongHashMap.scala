package ecmsketch.core

/** An open-addressing table of Long keys: a set (use [[add]], [[contains]] and [[remove]]) or, built
  * `withValues`, a map to Int values (also [[put]], [[putIfAbsent]] and [[get]]). Every key is
  * allowed, 0 included.
  *
  * Layout: one Long array, 0 marking a free slot (the key 0 is held beside it); a set's slot is its
  * key, a map's slot the key then its value, so a probe reads one cache line and no object is
  * allocated per key. Linear probing from a multiplicative hash (the top bits of key * 2^64 / phi),
  * at most half full (it doubles past that), and [[remove]] by backward shift (no tombstones:
  * lookups stay short after many removes). [[reset]] empties the table in time proportional to the
  * keys it is sized for, so a scratch table reused for jobs of any size costs each job what it holds.
  *
  * There is no iteration: the order of the slots depends on the capacity and on the order of
  * inserts and removes, so a caller that needs an order keeps its own. Not thread-safe.
  */
final class LongHashMap(expected: Int, withValues: Boolean) {
  import LongHashMap._

  /** A set. */
  def this() = this(0, false)

  /** Slot s is a(s << sh) (the key) and, in a map, a((s << sh) + 1) (its value). */
  private val sh = if (withValues) 1 else 0
  private var a: Array[Long] = null
  private var mask = 0
  private var shift = 0
  /** Keys in `a` (the key 0 is not among them). */
  private var count = 0
  private var hasZero = false
  private var zeroVal = 0
  allocate(expected)

  /** Keys held. */
  def size: Int = count + (if (hasZero) 1 else 0)
  def isEmpty: Boolean = size == 0
  /** Slots of the table (a power of two, at least twice [[size]]). */
  def capacity: Int = mask + 1

  private def allocate(n: Int): Unit = {
    val cap = capacityFor(n)
    a = new Array[Long](cap << sh)
    mask = cap - 1
    shift = 64 - Integer.numberOfTrailingZeros(cap)
  }

  /** Empties the table, keeping its capacity (time proportional to the capacity). */
  def clear(): Unit = {
    if (count > 0) { java.util.Arrays.fill(a, 0L); count = 0 }
    hasZero = false
  }

  /** Empties the table and makes room for `n` keys (more may be added: the table then grows), in
    * time proportional to `n` (or to [[KeepSlots]]): a larger table more than [[Slack]] times larger
    * than `n` needs is replaced by a smaller one, which also keeps a few keys within the cache.
    */
  def reset(n: Int): Unit = {
    val cap = capacityFor(n)
    if (cap > capacity || capacity > math.max(Slack * cap, KeepSlots)) { allocate(n); count = 0; hasZero = false }
    else clear()
  }

  @inline private def home(k: Long): Int = ((k * Phi) >>> shift).toInt

  /** The slot holding `k` (not 0), or -1. */
  private def find(k: Long): Int = {
    val t = a
    var s = home(k)
    var x = t(s << sh)
    while (x != 0L) {
      if (x == k) return s
      s = (s + 1) & mask
      x = t(s << sh)
    }
    -1
  }

  def contains(k: Long): Boolean = if (k == 0L) hasZero else find(k) >= 0

  private def requireValues(): Unit = if (!withValues) throw new UnsupportedOperationException("a set holds no values")

  /** The value of `k`, or `default` when absent (maps). */
  def get(k: Long, default: Int): Int = {
    requireValues()
    if (k == 0L) { if (hasZero) zeroVal else default }
    else { val s = find(k); if (s < 0) default else a((s << 1) + 1).toInt }
  }

  /** Inserts `k` with value `v` unless present: the value it already had, or [[Missing]] after
    * inserting (so a map read this way stores no value equal to [[Missing]]). A set ignores `v`.
    */
  def putIfAbsent(k: Long, v: Int): Int = {
    if (k == 0L) {
      if (hasZero) return zeroVal
      hasZero = true; zeroVal = v
      return Missing
    }
    val t = a
    var s = home(k)
    var x = t(s << sh)
    while (x != 0L) {
      if (x == k) return if (withValues) t((s << 1) + 1).toInt else 0
      s = (s + 1) & mask
      x = t(s << sh)
    }
    t(s << sh) = k
    if (withValues) t((s << 1) + 1) = v.toLong
    count += 1
    if (2 * count > capacity) grow()
    Missing
  }

  /** Adds `k`; false if it was present. */
  def add(k: Long): Boolean = putIfAbsent(k, 0) == Missing

  /** Sets the value of `k`, inserting it if absent (maps). */
  def put(k: Long, v: Int): Unit = {
    requireValues()
    if (k == 0L) { hasZero = true; zeroVal = v }
    else { val s = find(k); if (s < 0) putIfAbsent(k, v) else a((s << 1) + 1) = v.toLong }
  }

  /** Removes `k`; false if it was absent. The later keys of its probe run move back into the hole. */
  def remove(k: Long): Boolean = {
    if (k == 0L) { val had = hasZero; hasZero = false; return had }
    var hole = find(k)
    if (hole < 0) return false
    val t = a
    var j = (hole + 1) & mask
    var kj = t(j << sh)
    while (kj != 0L) {
      if (((j - home(kj)) & mask) >= ((j - hole) & mask)) {
        t(hole << sh) = kj
        if (withValues) t((hole << 1) + 1) = t((j << 1) + 1)
        hole = j
      }
      j = (j + 1) & mask
      kj = t(j << sh)
    }
    t(hole << sh) = 0L
    count -= 1
    true
  }

  /** Doubles the table, keeping the keys and values. */
  private def grow(): Unit = {
    val old = a; val oldCap = capacity; val n = count
    allocate(oldCap) // 2 oldCap slots
    val t = a
    var j = 0
    while (j < oldCap) {
      val k = old(j << sh)
      if (k != 0L) {
        var s = home(k)
        while (t(s << sh) != 0L) s = (s + 1) & mask
        t(s << sh) = k
        if (withValues) t((s << 1) + 1) = old((j << 1) + 1)
      }
      j += 1
    }
    count = n
  }
}

object LongHashMap {
  /** What [[LongHashMap.putIfAbsent]] returns after inserting. */
  final val Missing: Int = Int.MinValue
  private final val MinCapacity = 16
  /** How many times larger than needed a table may stay across [[LongHashMap.reset]]... */
  private final val Slack = 8
  /** ... or how many slots it may have whatever it needs (emptied by a fill of 2 KB). */
  private final val KeepSlots = 256
  /** 2^64 / golden ratio. */
  private final val Phi = 0x9E3779B97F4A7C15L

  /** The capacity for `n` keys: a power of two, at least 2 n and [[MinCapacity]]. */
  private def capacityFor(n: Int): Int = {
    var cap = MinCapacity
    while (cap < 2L * n) cap *= 2
    cap
  }
}
