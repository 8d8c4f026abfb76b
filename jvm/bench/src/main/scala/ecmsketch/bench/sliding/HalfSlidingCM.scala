package ecmsketch.bench.sliding

import ecmsketch.hash.Hashing

/** HSS-CM, a BENCHMARK BASELINE (not part of the product): the Count-Min sketch in the Half Sliding
  * Sketch framework of
  *
  *   "HSS: A Memory-Efficient, Accurate, and Fast Network Measurement Framework in Sliding
  *   Windows", a manuscript under review at IEEE TNSM whose text is not public; its authors'
  *   prototype is public (github.com/NLear/HalfSlidingSketch, MIT licence), and it claims 1.5-9x
  *   more accuracy than the Sliding sketch ([[SlidingCM]]) on frequency queries.
  *
  * With no paper to work from, this class implements the structure as that prototype behaves in its
  * frequency experiments, restated here in our own words (no code of it is copied):
  *
  *  - `depth` arrays of `width` 32-bit counters, one counter per bucket (Sl-CM keeps k >= 2 per
  *    bucket: that is the memory it saves, hence "half").
  *  - One clock sweeps all depth x width counters in array order (array 0 from column 0 to
  *    width - 1, then array 1, ...), once per window N, at constant speed: by time t it has taken
  *    floor(t * depth * width / N) steps, and each step zeroes the counter it passes. The arrays are
  *    thus cleared one after another, N / depth apart; a counter holds the arrivals since the clock
  *    last passed it, between 0 and N time units of them.
  *  - An insertion adds 1 to the key's counter in every array.
  *  - A query reads the key's counter in the `queried` arrays that follow the array under the clock
  *    (the array holding the counter it clears next) and returns the minimum. Those arrays were
  *    swept the longest ago; the counters read hold between the last N (1 - (queried + 1) / depth)
  *    and N time units of arrivals, so the answer can be below the window's count (the part of the
  *    window before the clearing is missing) as well as above it (collisions), with no bound.
  *  - It answers only the full window at the current time, and does not merge.
  *
  * Defaults as in the prototype's error-rate experiments: depth 6, queried 3, one 4-byte counter per
  * bucket (its "AQS" and "HW" options are off there, and are left out here). One difference: the
  * prototype starts its clock after the first N arrivals, with one sweep clearing every counter at
  * once; here the clock runs from time 0, so the first window is not special. Time is the
  * timestamp for a time-based window and the arrival number for a count-based one; it may jump
  * (the skipped counters are cleared on the way). [[bytesHeld]] = depth * width * 4.
  */
final class HalfSlidingCM(val width: Int, val depth: Int, val window: Long, val queried: Int = 3, seed: Long = 0x4A55L) {
  require(width > 0 && depth >= 2 && window > 0 && queried >= 1 && queried < depth, "bad HSS-CM parameters")
  private[this] val coeffs = Hashing.rowCoefficients(seed, depth)
  private[this] val counters = new Array[Int](depth * width)
  private[this] val len = depth.toLong * width
  private[this] var steps = 0L // counters the clock has passed since time 0
  private[this] var now = Long.MinValue

  /** The bytes the structure holds: its 32-bit counters. */
  def bytesHeld: Long = counters.length.toLong * 4L

  private def stepsAt(t: Long): Long = {
    val u = math.max(t, 0L)
    if (u < Long.MaxValue / len) u * len / window else (BigInt(u) * len / window).toLong
  }

  /** Moves the clock to time t, zeroing each counter it passes. */
  def advance(t: Long): Unit = {
    require(t >= now || now == Long.MinValue, s"time must not go back: $t after $now")
    now = t
    val target = stepsAt(t)
    if (target <= steps) return
    var s = math.max(steps, target - len) // a whole sweep or more: every counter is zeroed once
    while (s < target) { counters((s % len).toInt) = 0; s += 1 }
    steps = target
  }

  /** The key's column in array `i` (for tests). */
  def columnOf(key: Long, i: Int): Int =
    Hashing.column(Hashing.fingerprintLong(key), coeffs(2 * i), coeffs(2 * i + 1), width)

  /** Adds one arrival of `key` at time `t` (non-decreasing). */
  def add(key: Long, t: Long): Unit = {
    if (t != now) advance(t)
    val x = Hashing.modP(Hashing.fingerprintLong(key))
    var i = 0
    while (i < depth) {
      counters(i * width + Hashing.columnOfReduced(x, coeffs(2 * i), coeffs(2 * i + 1), width)) += 1
      i += 1
    }
  }

  /** The array under the clock: the one holding the counter it zeroes next. */
  def arrayUnderClock: Int = ((steps % len) / width).toInt

  /** Estimated arrivals of `key` in the window ending at the current time (the only query). */
  def query(key: Long): Long = {
    val x = Hashing.modP(Hashing.fingerprintLong(key))
    val k = arrayUnderClock
    var best = Long.MaxValue
    var j = 1
    while (j <= queried) {
      val i = (k + j) % depth
      val c = counters(i * width + Hashing.columnOfReduced(x, coeffs(2 * i), coeffs(2 * i + 1), width)).toLong
      if (c < best) best = c
      j += 1
    }
    best
  }
}

object HalfSlidingCM {
  /** The prototype's error-rate configuration: 6 arrays, the 3 after the clock's queried. */
  val DefaultDepth = 6
  val DefaultQueried = 3

  /** The widest HSS-CM of `depth` arrays within `bytes`. */
  def withinBytes(bytes: Long, window: Long, depth: Int = DefaultDepth, queried: Int = DefaultQueried,
                  seed: Long = 0x4A55L): HalfSlidingCM =
    new HalfSlidingCM(math.max(1L, bytes / (4L * depth)).toInt, depth, window, queried, seed)
}
