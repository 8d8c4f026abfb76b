package ecmsketch.dwave

import ecmsketch.core.{SketchException, WindowCounter, Windows}

/** A deterministic wave: a sliding-window counter (or sum of non-negative integer weights) with
  * relative error <= epsilon on every range r <= N, O(1) worst-case time per update, and the
  * order-preserving merge of ECM §5.1. See the design and implementation notes in docs/design/dwave.md.
  *
  * Items are (pos, zb, z): timestamp, running total before and including the item's weight v = z - zb.
  * The running totals are plain 64-bit longs; they replace the paper's counters modulo N' (we have
  * 64-bit words, and a total above Long.MaxValue is refused).
  *
  * State: a node pool of parallel primitive arrays; the list L of all stored items in position
  * order (doubly linked through `prev`/`next`); per level a ring of node indices (oldest first).
  * Each item lives only at its level j = msb(~zb & z) (the largest j such that a multiple of 2^j
  * lies in (zb, z]), capped at levels - 1.
  *
  * Removed items leave two records, which together with L form the "chain" that queries, merges
  * and the cell encoding use:
  *  - the expiry record (expPos, expZ): every unit with running rank <= expZ lies at or before
  *    expPos and every later unit at or after it. Initially (first timestamp, 0); then the newest
  *    item removed while expired.
  *  - the removed head rh (rhPos, rhZ, rhV): the newest item removed by level overflow while it was
  *    the oldest unexpired item. It is older than every unexpired item in L, and every L item older
  *    than it has z <= expZ (dead items awaiting lazy expiry).
  */
final class DetWave(val config: DwConfig) extends WindowCounter {
  import DetWave._

  private[this] val window = config.window
  private[this] val bounded = window != Long.MaxValue
  private[this] val top = config.levels - 1
  private[this] val k = config.k

  // node pool
  private[dwave] var pPos: Array[Long] = EmptyLongs
  private[dwave] var pZ: Array[Long] = EmptyLongs
  private[dwave] var pV: Array[Long] = EmptyLongs
  private[dwave] var pPrev: Array[Int] = EmptyInts
  private[dwave] var pNext: Array[Int] = EmptyInts
  private[dwave] var pLvl: Array[Byte] = EmptyBytes
  private var freeHead: Int = -1
  private var poolUsed: Int = 0 // indices [0, poolUsed) have been handed out at least once
  private var count: Int = 0
  private[dwave] var lHead: Int = -1
  private[dwave] var lTail: Int = -1

  // level rings (node indices, oldest first)
  private[dwave] var rings: Array[Array[Int]] = EmptyRings
  private[dwave] var rHead: Array[Int] = EmptyInts
  private[dwave] var rSize: Array[Int] = EmptyInts

  private var _total: Long = 0L
  private var _lastTs: Long = Long.MinValue
  private[dwave] var started: Boolean = false
  private[dwave] var expPos: Long = Long.MinValue
  private[dwave] var expZ: Long = 0L
  private[dwave] var hasRh: Boolean = false
  private[dwave] var rhPos: Long = 0L
  private[dwave] var rhZ: Long = 0L
  private[dwave] var rhV: Long = 0L
  // top-level overflow record: the newest unexpired item the top level discarded (its pos and z);
  // every unit with rank <= ovfZ lies at or before _overflowTs
  private[dwave] var hasOvf: Boolean = false
  private[dwave] var _overflowTs: Long = Long.MinValue
  private[dwave] var ovfZ: Long = 0L

  def isEmpty: Boolean = count == 0 && !hasRh
  def lastTs: Long = _lastTs
  def total: Long = _total
  def heldWeight: Long = _total
  def overflowTs: Long = _overflowTs
  def itemCount: Int = count

  // ---------------------------------------------------------------- pool, list and rings
  private def ensureRings(): Unit =
    if (rings.length == 0) {
      rings = new Array[Array[Int]](config.levels)
      rHead = new Array[Int](config.levels)
      rSize = new Array[Int](config.levels)
    }

  private def allocNode(): Int = {
    if (freeHead >= 0) { val n = freeHead; freeHead = pNext(n); return n }
    if (poolUsed == pPos.length) {
      val m = math.min(config.maxItems, math.max(8, 2 * pPos.length))
      if (m <= pPos.length) throw new IllegalStateException("deterministic wave node pool exhausted")
      resizePool(m)
    }
    val n = poolUsed; poolUsed += 1; n
  }

  private def resizePool(m: Int): Unit = {
    pPos = java.util.Arrays.copyOf(pPos, m); pZ = java.util.Arrays.copyOf(pZ, m); pV = java.util.Arrays.copyOf(pV, m)
    pPrev = java.util.Arrays.copyOf(pPrev, m); pNext = java.util.Arrays.copyOf(pNext, m); pLvl = java.util.Arrays.copyOf(pLvl, m)
  }

  private def freeNode(n: Int): Unit = { pNext(n) = freeHead; freeHead = n }

  @inline private def linkTail(n: Int): Unit = {
    pPrev(n) = lTail; pNext(n) = -1
    if (lTail >= 0) pNext(lTail) = n else lHead = n
    lTail = n
    count += 1
  }

  @inline private def unlink(n: Int): Unit = {
    val p = pPrev(n); val q = pNext(n)
    if (p >= 0) pNext(p) = q else lHead = q
    if (q >= 0) pPrev(q) = p else lTail = p
    count -= 1
  }

  @inline private def ringAt(level: Int, j: Int): Int = {
    val r = rings(level)
    var i = rHead(level) + j
    if (i >= r.length) i -= r.length
    r(i)
  }

  private def pushNewest(level: Int, n: Int): Unit = {
    var r = rings(level)
    val s = rSize(level)
    if (r == null || s == r.length) {
      val cap = config.capacityAt(level)
      val m = if (r == null) math.min(4, cap) else math.min(cap, 2 * r.length)
      if (r != null && m <= r.length) throw new IllegalStateException(s"level $level ring is full")
      val nr = new Array[Int](m)
      var j = 0
      while (j < s) { nr(j) = ringAt(level, j); j += 1 }
      rings(level) = nr; rHead(level) = 0; r = nr
    }
    var i = rHead(level) + s
    if (i >= r.length) i -= r.length
    r(i) = n
    rSize(level) = s + 1
  }

  private def popOldest(level: Int): Int = {
    val r = rings(level)
    val h = rHead(level)
    val n = r(h)
    rHead(level) = if (h + 1 == r.length) 0 else h + 1
    rSize(level) -= 1
    n
  }

  /** Level of an item with running totals (zb, z], zb < z: msb(~zb & z) capped at levels - 1. */
  @inline private[dwave] def levelOf(zb: Long, z: Long): Int = {
    val j = 63 - java.lang.Long.numberOfLeadingZeros(~zb & z)
    if (j > top) top else j
  }

  // ---------------------------------------------------------------- expiry
  /** The largest expired timestamp at clock `ts` (positions <= it are expired), or Long.MinValue
    * with `noExpiry` semantics when nothing can be expired (unbounded window or ts - N underflows).
    */
  @inline private def expiryBound(ts: Long): Long =
    if (!bounded || ts < Long.MinValue + window) Long.MinValue else ts - window

  @inline private def canExpire(ts: Long): Boolean = bounded && ts >= Long.MinValue + window

  private def setExp(pos: Long, z: Long): Unit = {
    if (z > expZ) { expZ = z; expPos = pos }
    if (hasRh && rhZ <= expZ) hasRh = false
  }

  /** Removes at most `max` expired items (the removed-head record first, then L's head). */
  private def expire(ts: Long, max: Int): Unit = {
    if (!canExpire(ts)) return
    val b = ts - window
    var left = max
    while (left > 0) {
      if (hasRh && rhPos <= b) setExp(rhPos, rhZ)
      else if (lHead >= 0 && pPos(lHead) <= b) {
        val h = lHead
        setExp(pPos(h), pZ(h))
        val lv = pLvl(h)
        val o = popOldest(lv)
        if (o != h) throw new IllegalStateException("L head is not the oldest item of its level")
        unlink(h); freeNode(h)
      } else left = 0
      left -= 1
    }
  }

  // ---------------------------------------------------------------- updates
  private def checkOrder(ts: Long): Unit =
    if (ts < _lastTs)
      throw new SketchException(
        s"timestamps must be non-decreasing: got $ts after ${_lastTs} (the Spark and Python layers reorder input; the core does not)")

  /** Adds one arrival at `ts` (non-decreasing; equal timestamps allowed). */
  def add(ts: Long): Unit = add(ts, 1L)

  /** Adds weight v >= 0 at `ts` (the sum wave update, Fig. 5). O(1) worst case (plus pool growth). */
  def add(ts: Long, v: Long): Unit = {
    if (v < 0) throw new SketchException(s"weight must be non-negative, got $v")
    if (ts < _lastTs) checkOrder(ts)
    if (v > Long.MaxValue - _total) throw new SketchException("deterministic wave overflow: more than 2^63 - 1 total weight")
    _lastTs = ts
    if (bounded) expire(ts, 2)
    if (v == 0) return
    if (!started) { started = true; expPos = ts; expZ = 0L; ensureRings() }
    val zb = _total
    val z = zb + v
    _total = z
    val j = levelOf(zb, z)
    if (rSize(j) == config.capacityAt(j)) discardOldest(j, ts)
    val n = allocNode()
    pPos(n) = ts; pZ(n) = z; pV(n) = v; pLvl(n) = j.toByte
    linkTail(n)
    pushNewest(j, n)
  }

  /** Level `j` is full: drops its oldest item and splices it out of L, keeping the records. */
  private def discardOldest(j: Int, ts: Long): Unit = {
    val d = popOldest(j)
    val p = pPos(d)
    val eb = expiryBound(ts)
    if (canExpire(ts) && p <= eb) setExp(p, pZ(d))
    else {
      val prev = pPrev(d)
      if (prev < 0 || (canExpire(ts) && pPos(prev) <= eb)) {
        // d is the oldest unexpired item: it becomes the removed-head record; the expired items
        // still in L before it are summarised by the expiry record
        if (prev >= 0) setExp(pPos(prev), pZ(prev))
        hasRh = true; rhPos = p; rhZ = pZ(d); rhV = pV(d)
      }
      if (j == top && (!hasOvf || p > _overflowTs || (p == _overflowTs && pZ(d) > ovfZ))) {
        hasOvf = true; _overflowTs = p; ovfZ = pZ(d)
      }
    }
    unlink(d); freeNode(d)
  }

  /** Moves the clock to `now` (>= lastTs) and removes every expired item. */
  def advanceTo(now: Long): Unit = {
    checkOrder(now)
    _lastTs = now
    expireAll()
  }

  /** Whether an item or the removed-head record survives expiry at `now` (>= lastTs). */
  override def retainsAt(now: Long): Boolean = !isEmpty && (!canExpire(now) || {
    val b = now - window
    (lTail >= 0 && pPos(lTail) > b) || (hasRh && rhPos > b)
  })

  /** Whether expired items await lazy expiry at the current clock. */
  private[dwave] def hasExpired: Boolean = canExpire(_lastTs) && {
    val b = _lastTs - window
    (hasRh && rhPos <= b) || (lHead >= 0 && pPos(lHead) <= b)
  }

  /** Removes every item expired at the current clock (no visible change to any answer). */
  private[dwave] def expireAll(): Unit = if (bounded) expire(_lastTs, Int.MaxValue)

  // ---------------------------------------------------------------- queries
  private def overflowError(lo: Long): Nothing =
    throw new SketchException(
      s"more than max_arrivals = ${config.maxArrivals} arrivals fell within one window before ts ${_overflowTs}, " +
        s"so ranges reaching back to ${_overflowTs} (this one starts at $lo) have no error guarantee; " +
        "rebuild with a larger max_arrivals (or leave it unset)")

  /** Oldest stored item with pos >= lo (binary search per level), or -1. */
  private def firstAtOrAfter(lo: Long): Int = {
    var best = -1
    var bestZ = Long.MaxValue
    var l = 0
    while (l < rSize.length) {
      val s = rSize(l)
      if (s > 0 && pPos(ringAt(l, s - 1)) >= lo) {
        var a = 0; var b = s - 1 // the answer is in [a, b]
        while (a < b) {
          val mid = (a + b) >>> 1
          if (pPos(ringAt(l, mid)) >= lo) b = mid else a = mid + 1
        }
        val n = ringAt(l, a)
        if (pZ(n) < bestZ) { bestZ = pZ(n); best = n }
      }
      l += 1
    }
    best
  }

  /** Sound interval [low, high] of the weight with timestamps >= lo (same overflow rule). */
  def boundsFrom(lo: Long): (Long, Long) = {
    val zb2 = locateZb2(lo)
    if (zb2 == NoP2) (0L, 0L) else (_total - zb2, _total - lastZ1)
  }

  /** Midpoint estimate of the weight with timestamps >= lo. Throws SketchException naming
    * max_arrivals when lo <= [[overflowTs]] (the bound U was exceeded inside the queried range).
    */
  def estimateFrom(lo: Long): Double = {
    val zb2 = locateZb2(lo)
    if (zb2 == NoP2) 0.0
    else {
      val z1 = lastZ1
      // total - (z1 + zb2) / 2, computed without overflow
      (_total - zb2).toDouble + (zb2 - z1).toDouble / 2.0
    }
  }

  private var lastZ1: Long = 0L

  /** Returns zb of p2 (or NoP2 when the answer is exactly 0) and leaves z of p1 in lastZ1. */
  private def locateZb2(lo: Long): Long = {
    if (hasOvf && lo <= _overflowTs) overflowError(lo)
    if (!started) { lastZ1 = 0L; return NoP2 }
    if (lo <= expPos) {
      // every unit after rank expZ lies at or after expPos >= lo; those up to expZ lie at or before
      // expPos (exact when expZ = 0: an all-time query)
      lastZ1 = 0L
      return expZ
    }
    // from here on lo > overflowTs, so the units up to ovfZ lie before lo
    if (hasRh && rhPos >= lo) { lastZ1 = math.max(expZ, ovfZ); return rhZ - rhV }
    val p2 = firstAtOrAfter(lo)
    if (p2 < 0) { lastZ1 = 0L; return NoP2 }
    var z1 = math.max(expZ, ovfZ)
    val pred = pPrev(p2)
    if (pred >= 0 && pZ(pred) > z1) z1 = pZ(pred)
    if (hasRh && rhZ > z1) z1 = rhZ
    lastZ1 = z1
    pZ(p2) - pV(p2)
  }

  /** Estimate for the range (now - r, now]; r in [0, N], now >= last timestamp. */
  def estimate(range: Long, now: Long): Double = {
    Windows.checkQuery(config.window, range, now, _lastTs)
    if (range == 0) 0.0 else estimateFrom(Windows.lowerBound(now, range))
  }

  // ---------------------------------------------------------------- chain walk (merge, encoding)
  /** Visits the chain oldest first: the removed head (if any), then the L items, as (pos, zb, z).
    * Call after a full expiry (L then holds no expired item).
    */
  private[dwave] def foreachItem(f: (Long, Long, Long) => Unit): Unit = {
    if (hasRh) f(rhPos, rhZ - rhV, rhZ)
    var n = lHead
    while (n >= 0) { f(pPos(n), pZ(n) - pV(n), pZ(n)); n = pNext(n) }
  }

  /** The chain for the merge: like [[foreachItem]], with the overflow record inserted as a
    * zero-weight element (pos = overflowTs, zb = z = ovfZ) where it splits a gap.
    */
  private[dwave] def foreachElement(f: (Long, Long, Long) => Unit): Unit = {
    var pending = hasOvf && ovfZ > expZ
    foreachItem { (p, zb, z) =>
      if (pending && ovfZ <= zb) { f(_overflowTs, ovfZ, ovfZ); pending = false }
      else if (pending && ovfZ <= z) pending = false // the record ends this element: nothing to split
      f(p, zb, z)
    }
  }

  // ---------------------------------------------------------------- invariants
  /** The first violated invariant, or null. Besides the structure it checks the condition that
    * certifies the error bound: for every gap between consecutive chain elements a, b whose
    * unknown units u = zb(b) - z(a) > 0 can straddle a legal query start (a start s with
    * pos(a) < s <= pos(b), s > lastTs - N and s > overflowTs), (u + 1) * k <= 2 * (total - zb(b)).
    * It gives |estimate - truth| <= u/2 < eps * truth for the query, and a misplacement of at most
    * ceil(u/2) <= eps * truth in the merge (see docs/design/dwave.md).
    */
  private[dwave] def violation(): String = {
    if (!started) return if (count == 0 && !hasRh && _total == 0) null else "not started but holds items"
    if (expZ < 0 || expZ > _total) return s"expiry record z $expZ outside [0, ${_total}]"
    if (expPos > _lastTs) return s"expiry record at $expPos after the last timestamp ${_lastTs}"
    val eb = expiryBound(_lastTs)
    if (expZ > 0 && !(canExpire(_lastTs) && expPos <= eb)) return s"expiry record at $expPos is not expired"
    if (rings.length != config.levels) return "level rings missing"
    // structure of L
    var n = lHead; var prev = -1; var c = 0
    var prevPos = Long.MinValue; var prevZ = 0L
    val seen = new Array[Int](config.levels)
    while (n >= 0) {
      if (c > config.maxItems) return "L longer than the sum of capacities"
      if (pPrev(n) != prev) return s"broken prev link at node $n"
      val p = pPos(n); val z = pZ(n); val v = pV(n)
      if (v < 1) return s"item weight $v < 1"
      if (z - v < prevZ) return s"item totals overlap: zb ${z - v} < previous z $prevZ"
      if (c > 0 && p < prevPos) return s"positions decrease: $p after $prevPos"
      if (p > _lastTs) return s"item at $p after the last timestamp ${_lastTs}"
      val lv = levelOf(z - v, z)
      if (pLvl(n) != lv) return s"item level ${pLvl(n)} != $lv"
      if (seen(lv) >= rSize(lv) || ringAt(lv, seen(lv)) != n) return s"level $lv ring out of order with L"
      seen(lv) += 1
      prev = n; prevPos = p; prevZ = z; c += 1
      n = pNext(n)
    }
    if (prev != lTail) return "broken tail"
    if (c != count) return s"count $count != L length $c"
    var l = 0
    while (l < config.levels) {
      if (rSize(l) != seen(l)) return s"level $l ring holds ${rSize(l)} items, L ${seen(l)}"
      if (rSize(l) > config.capacityAt(l)) return s"level $l holds ${rSize(l)} items, more than ${config.capacityAt(l)}"
      l += 1
    }
    if (count > 0 && pZ(lTail) != _total) return s"total ${_total} != z of the newest item ${pZ(lTail)}"
    if (count == 0 && hasRh) return "removed-head record without items"
    // chain: expiry record, then expired items awaiting lazy expiry (they only raise the record),
    // then the removed head, then the unexpired items
    val canE = canExpire(_lastTs)
    var aPos = expPos; var aZ = expZ
    if (hasRh && (rhV < 1 || rhZ - rhV < expZ)) return s"removed head (zb ${rhZ - rhV}) overlaps the expiry record ($expZ)"
    if (hasRh && rhPos < expPos) return "removed head before the expiry record"
    val liveRh = hasRh && !(canE && rhPos <= eb)
    if (hasRh && !liveRh && rhZ > aZ) { aZ = rhZ; aPos = rhPos }
    n = lHead
    while (n >= 0 && canE && pPos(n) <= eb) {
      if (liveRh && pZ(n) > rhZ - rhV) return "expired item after the removed head"
      if (pZ(n) > aZ) { aZ = pZ(n); aPos = pPos(n) }
      n = pNext(n)
    }
    if (hasOvf && (ovfZ < 0 || ovfZ > _total || _overflowTs > _lastTs)) return s"overflow record ($ovfZ at ${_overflowTs}) out of range"
    val minStart = math.max(if (canE) eb + 1 else Long.MinValue,
      if (!hasOvf) Long.MinValue else if (_overflowTs == Long.MaxValue) Long.MaxValue else _overflowTs + 1)
    var first = true
    while (first || n >= 0) {
      val isRh = first && liveRh
      if (isRh || n >= 0) {
        val bPos = if (isRh) rhPos else pPos(n)
        val bZ = if (isRh) rhZ else pZ(n)
        val bZb = if (isRh) rhZ - rhV else pZ(n) - pV(n)
        if (bZb < aZ) return s"chain element (zb $bZb) overlaps its predecessor (z $aZ)"
        if (bPos < aPos) return s"chain positions decrease: $bPos after $aPos"
        if (hasOvf && bPos > _overflowTs) {
          // starts in this gap are after the overflow: the units up to ovfZ lie before them
          if (ovfZ > bZb) return s"overflow record (z $ovfZ) after the item at $bPos (zb $bZb)"
          if (ovfZ > aZ) { aZ = ovfZ; aPos = _overflowTs }
        }
        val u = bZb - aZ
        if (u > 0 && aPos < bPos && math.max(aPos + 1, minStart) <= bPos) {
          val low = _total - bZb
          if (java.lang.Long.compareUnsigned(u + 1, java.lang.Long.divideUnsigned(low << 1, k.toLong)) > 0)
            return s"gap of $u unknown units before ts $bPos exceeds what eps = ${config.epsilon} certifies for $low units after it"
        }
        aPos = bPos; aZ = bZ
        if (!isRh) n = pNext(n)
      }
      first = false
    }
    null
  }

  // ---------------------------------------------------------------- copy and restore
  def copy(): DetWave = {
    val w = new DetWave(config)
    w.pPos = pPos.clone(); w.pZ = pZ.clone(); w.pV = pV.clone()
    w.pPrev = pPrev.clone(); w.pNext = pNext.clone(); w.pLvl = pLvl.clone()
    w.freeHead = freeHead; w.poolUsed = poolUsed; w.count = count; w.lHead = lHead; w.lTail = lTail
    w.rings = rings.map(r => if (r == null) null else r.clone()); w.rHead = rHead.clone(); w.rSize = rSize.clone()
    w._total = _total; w._lastTs = _lastTs; w.started = started; w.expPos = expPos; w.expZ = expZ
    w.hasRh = hasRh; w.rhPos = rhPos; w.rhZ = rhZ; w.rhV = rhV; w._overflowTs = _overflowTs
    w.hasOvf = hasOvf; w.ovfZ = ovfZ
    w
  }

  /** Rebuilds a wave from decoded parts (items oldest first as parallel arrays of length n).
    * Returns null on success or the violated invariant; allocates proportionally to n.
    */
  private[dwave] def restore(n: Int, pos: Array[Long], zs: Array[Long], vs: Array[Long], expP: Long, expZv: Long,
                             rh: Boolean, rhP: Long, rhZv: Long, rhVv: Long,
                             ovf: Boolean, ovfTs: Long, ovfZv: Long, last: Long): String = {
    started = true; _lastTs = last; expPos = expP; expZ = expZv
    hasRh = rh; rhPos = rhP; rhZ = rhZv; rhV = rhVv
    hasOvf = ovf; _overflowTs = if (ovf) ovfTs else Long.MinValue; ovfZ = if (ovf) ovfZv else 0L
    ensureRings()
    // count the items per level first, so that rings are allocated to their sizes
    val per = new Array[Int](config.levels)
    var i = 0
    while (i < n) {
      val zb = zs(i) - vs(i)
      if (vs(i) < 1 || zb < 0) return s"item weight ${vs(i)} < 1"
      val lv = levelOf(zb, zs(i))
      per(lv) += 1
      if (per(lv) > config.capacityAt(lv)) return s"level $lv holds more than ${config.capacityAt(lv)} items"
      i += 1
    }
    var l = 0
    while (l < config.levels) { if (per(l) > 0) rings(l) = new Array[Int](per(l)); l += 1 }
    resizePool(math.max(1, n))
    i = 0
    while (i < n) {
      val lv = levelOf(zs(i) - vs(i), zs(i))
      val nd = i
      poolUsed = i + 1
      pPos(nd) = pos(i); pZ(nd) = zs(i); pV(nd) = vs(i); pLvl(nd) = lv.toByte
      linkTail(nd)
      pushNewest(lv, nd)
      i += 1
    }
    _total = if (n > 0) zs(n - 1) else expZv
    violation()
  }

  override def toString: String = {
    val sb = new StringBuilder(s"DetWave(eps=${config.epsilon}, N=${config.window}, U=${config.maxArrivals}, total=${_total}, " +
      s"exp=$expZ@$expPos, ")
    if (hasRh) sb.append(s"rh=(${rhZ - rhV},$rhZ]@$rhPos, ")
    sb.append("items=[")
    var n = lHead; var first = true
    while (n >= 0) {
      if (!first) sb.append(", ")
      sb.append(s"(${pZ(n) - pV(n)},${pZ(n)}]@${pPos(n)}/L${pLvl(n)}"); first = false; n = pNext(n)
    }
    sb.append("])").toString
  }
}

object DetWave {
  private val EmptyLongs = new Array[Long](0)
  private val EmptyInts = new Array[Int](0)
  private val EmptyBytes = new Array[Byte](0)
  private val EmptyRings = new Array[Array[Int]](0)
  private final val NoP2 = Long.MinValue

  /** Order-preserving n-way merge (ECM §5.1; docs/design/dwave.md, merge) into a wave with `config`
    * (callers pick its max_arrivals, see [[DwConfig.mergedArrivals]]). Adds the same error as the
    * EH merge: the result answers within (1 + eps_in)(1 + eps_out) - 1 of the union. A single
    * non-empty input with an equal config is copied.
    *
    * Each input is walked as a chain of pseudo-buckets (see docs/design/dwave.md): between consecutive
    * chain elements a, b the u = zb(b) - z(a) unknown units lie in [pos(a), pos(b)] and b's own
    * v(b) units lie exactly at pos(b); floor(u/2) units go to pos(a), the rest and v(b) to pos(b).
    */
  def merge(inputs: Seq[DetWave], config: DwConfig): DetWave = DwMerge.merge(inputs, config)
}
