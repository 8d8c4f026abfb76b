package ecmsketch.bench.sliding

import ecmsketch.hash.Hashing

/** Sl-CM, a BENCHMARK BASELINE (not part of the product): the Count-Min sketch put into the
  * Sliding sketch framework of
  *
  *   X. Gou, L. He, Y. Zhang, K. Wang, X. Liu, T. Yang, Y. Wang, B. Cui. "Sliding Sketches: A
  *   Framework using Time Zones for Data Stream Processing in Sliding Windows". KDD 2020.
  *
  * written here from the paper's description (its Sections 3 and 4), not from its code.
  *
  * The structure: `depth` arrays of `width` buckets, each bucket holding `fields` counters (the
  * paper's k; k = 2 is its basic version). Time is cut into zones of length N / (k - 1), N the
  * window. A scanning pointer sweeps every array once per zone at constant speed (bucket j of a
  * sweep is reached (j+1)/width of the way through the zone); when it reaches a bucket, the bucket's
  * oldest field is cleared and becomes the field that takes new insertions. An insertion adds to
  * the current field of the key's bucket in every array; a query sums all k fields of each of the
  * key's buckets (they hold the arrivals since the bucket's (k-1)-th previous scan: the window N plus
  * up to one zone before it) and returns the minimum over the arrays. It answers only the full
  * window at the current time, over-estimates by a data-dependent amount (the zone before the
  * window plus hash collisions) with no certified bound, and does not merge.
  *
  * Positions of the pointer are computed from the time (the number of bucket steps taken since
  * time 0 is floor(t * width * (k-1) / N)), so time may jump: the skipped buckets are scanned on
  * the way. Time is the timestamp for a time-based window and the arrival number for a count-based
  * one. Counters are 32-bit as in the paper, so [[bytesHeld]] = depth * width * k * 4.
  */
final class SlidingCM(val width: Int, val depth: Int, val window: Long, val fields: Int = 2, seed: Long = 0x51DEL) {
  require(width > 0 && depth > 0 && window > 0 && fields >= 2, "bad Sl-CM parameters")
  private[this] val coeffs = Hashing.rowCoefficients(seed, depth)
  private[this] val counters = new Array[Int](depth * width * fields)
  private[this] var steps = 0L // bucket steps the pointer has taken since time 0
  private[this] var now = Long.MinValue

  /** The bytes the structure holds: its 32-bit counters. */
  def bytesHeld: Long = counters.length.toLong * 4L

  /** Pointer steps taken by time t: floor(t * width * (k-1) / N) (time starts at 0). */
  private[this] val perTime = width.toLong * (fields - 1)
  private def stepsAt(t: Long): Long = {
    val u = math.max(t, 0L)
    if (u < Long.MaxValue / perTime) u * perTime / window else (BigInt(u) * perTime / window).toLong
  }

  /** Scans of bucket j after `s` steps: ceil((s - j) / width) for s > j, else 0. */
  @inline private def scansOf(j: Int, s: Long): Long = if (s <= j) 0L else (s - j + width - 1) / width

  /** Moves the pointer to time t, clearing the oldest field of each bucket it passes. */
  def advance(t: Long): Unit = {
    require(t >= now || now == Long.MinValue, s"time must not go back: $t after $now")
    now = t
    val target = stepsAt(t)
    if (target <= steps) return
    // more than k sweeps: every field of every bucket has been cleared
    val from = math.max(steps, target - width.toLong * fields)
    var s = from
    while (s < target) {
      val j = (s % width).toInt
      val newField = (scansOf(j, s + 1) % fields).toInt // the field bucket j uses after this scan
      var i = 0
      while (i < depth) { counters((i * width + j) * fields + newField) = 0; i += 1 }
      s += 1
    }
    steps = target
  }

  @inline private def column(fp: Long, i: Int): Int = Hashing.column(fp, coeffs(2 * i), coeffs(2 * i + 1), width)

  /** Adds one arrival of `key` at time `t` (non-decreasing). */
  def add(key: Long, t: Long): Unit = {
    if (t != now) advance(t)
    val fp = Hashing.fingerprintLong(key)
    var i = 0
    while (i < depth) {
      val j = column(fp, i)
      val f = (scansOf(j, steps) % fields).toInt
      counters((i * width + j) * fields + f) += 1
      i += 1
    }
  }

  /** Estimated arrivals of `key` in the window ending at the current time (the only query). */
  def query(key: Long): Long = {
    val fp = Hashing.fingerprintLong(key)
    var best = Long.MaxValue
    var i = 0
    while (i < depth) {
      val base = (i * width + column(fp, i)) * fields
      var sum = 0L
      var f = 0
      while (f < fields) { sum += counters(base + f); f += 1 }
      if (sum < best) best = sum
      i += 1
    }
    best
  }
}

object SlidingCM {
  /** The widest Sl-CM of `depth` arrays and k = `fields` within `bytes`. */
  def withinBytes(bytes: Long, depth: Int, window: Long, fields: Int = 2, seed: Long = 0x51DEL): SlidingCM =
    new SlidingCM(math.max(1L, bytes / (4L * depth * fields)).toInt, depth, window, fields, seed)
}
