package ecmsketch.decayed

import ecmsketch.hash.Hashing

/** The integer arithmetic of the Cormode-Tirthapura-Xu sketch (CTX §3.2-3.3): the Carter-Wegman
  * hash over the prime p = 2^61 - 1, MinHit (Algorithm 5) and RangeSample by the floor-sum formula.
  * Products of two values below 2^62 need 124 bits; [[floorDiv]] divides such a product exactly
  * (a double estimate of the quotient, corrected with the exact 64-bit remainder), as long as the
  * quotient stays below 2^50, which every caller here guarantees (quotients are at most a range
  * length, <= 2^40).
  */
object Arith {
  /** The prime of every hash: 2^61 - 1. */
  final val P: Long = Hashing.MersenneP

  /** h(x) = (a x + b) mod p for x in [0, p). */
  @inline def hash(a: Long, b: Long, x: Long): Long = Hashing.modP(Hashing.mulModP(a, x) + b)

  /** The selection bound of level i: x is selected iff h(x) <= L_i = floor(p / 2^i) - 1. */
  @inline def levelBound(i: Int): Long = (P >>> i) - 1

  /** Sampling probability of level i: floor(p / 2^i) / p (Fact 3.1). */
  @inline def levelProbability(i: Int): Double = (P >>> i).toDouble / P.toDouble

  /** floor((x * y + z) / d) for x, y >= 0, d > 0 and a true quotient in [0, 2^50). */
  def floorDiv(x: Long, y: Long, z: Long, d: Long): Long = {
    var q = math.floor((x.toDouble * y.toDouble + z.toDouble) / d.toDouble).toLong
    if (q < 0) q = 0
    // the true remainder x*y + z - q*d is small (q is off by at most one), so 64-bit wrapping is exact
    var r = x * y + z - q * d
    while (r < 0) { q -= 1; r += d }
    while (r >= d) { q += 1; r -= d }
    q
  }

  /** MinHit (Problem 1, Algorithm 5 with the spec's derived helpers): the smallest j in [0, n] with
    * (u + j a) mod m <= L, or -1 if there is none. Requires 0 <= a < m, 0 <= u < m, n >= 0, L >= 0.
    */
  def minHit(m: Long, a: Long, u: Long, n: Long, L: Long): Long = {
    if (m <= L || u <= L) return 0L                                    // line 1
    if (a == 0) return -1L                                             // line 2
    val s0len = math.min(n + 1, (m - 1 - u) / a + 1)                   // |S_0|
    if (s0len == n + 1) return -1L                                     // line 5
    if (a == 1) return m - u                                           // line 6
    val r = m % a                                                      // line 7
    val k = floorDiv(n, a, u, m)                                       // wraps: floor((u + n a) / m)
    val f1 = java.lang.Math.floorMod(u - r, a)                         // f(1) = (u - m) mod a
    val d =
      if (a - r <= a / 2.0) minHit(a, a - r, f1, k - 1, L)             // Case 1
      else minHit(a, r, java.lang.Math.floorMod(a - f1 + L, a), k - 1, L) // Case 2
    if (d == -1L) -1L
    else {
      val mm = d + 1
      // Lemma 3.7: the index of run S_mm's first element, ceil((mm m - u) / a)
      floorDiv(mm, m, a - 1 - u, a)
    }
  }

  /** (x + y) mod p for x, y in [0, p). */
  @inline def addModP(x: Long, y: Long): Long = { val s = x + y; if (s >= P) s - P else s }

  /** The first j in [from, last] with h(j) = (a j + b) mod p <= L, given hFrom = h(from), or -1 (also
    * for an empty range, from > last): the next `ScanSteps` offsets by stepping the hash
    * (h(j + 1) = h(j) + a mod p), the rest by [[minHit]].
    * Low levels select often (a level-i hit is about 2^i offsets away), so the scan answers them
    * without MinHit's recursion; levels 6 and up skip it. Equal to minHit(p, a, hFrom, last - from, L) + from.
    */
  def firstHit(a: Long, hFrom: Long, from: Long, last: Long, L: Long): Long = {
    if (from > last) return -1L
    var j = from; var h = hFrom
    val stop = if (L < ScanBound) from else math.min(last, from + ScanSteps - 1)
    while (h > L) {
      if (j >= stop) {
        if (j >= last) return -1L
        val r = minHit(P, a, addModP(h, a), last - j - 1, L)
        return if (r < 0) -1L else j + 1 + r
      }
      j += 1; h = addModP(h, a)
    }
    j
  }

  /** Offsets [[firstHit]] steps through before MinHit, at levels up to 5 (8 and 128 measured no different). */
  final val ScanSteps = 32
  /** Levels 6 and up (a hit about 2^i >= 64 offsets away, so 32 steps find one less than 40 % of
    * the time) go straight to MinHit: their bounds L_i = floor(p / 2^i) - 1 lie below this one.
    */
  private final val ScanBound: Long = P >>> 6

  /** n (n - 1) / 2 modulo 2^64. */
  @inline private def tri(n: Long): Long = if ((n & 1L) == 0L) (n / 2) * (n - 1) else n * ((n - 1) / 2)

  /** FS(n, m, a, b) = sum_{i=0}^{n-1} floor((a i + b) / m) modulo 2^64 (Euclid-like floor sum), for
    * n >= 0, m > 0, 0 <= a, b < 2^62 (only differences of two such sums are used, and they are small).
    */
  def floorSum(n0: Long, m0: Long, a0: Long, b0: Long): Long = {
    var n = n0; var m = m0; var a = a0; var b = b0
    var ans = 0L
    while (n > 0) {
      if (a >= m) { ans += tri(n) * (a / m); a %= m }
      if (b >= m) { ans += n * (b / m); b %= m }
      val q = floorDiv(a, n, b, m) // floor((a n + b) / m) <= n since a < m and b < m
      if (q == 0) return ans
      val rem = a * n + b - q * m
      n = q; b = rem
      val t = m; m = a; a = t
    }
    ans
  }

  /** RangeSample: how many x in [lo, lo + n] are selected at level `level` by h = (a x + b) mod p
    * (cited in CTX §3.1; closed form derived in docs/design/decayed.md):
    * (n+1) - [FS(n+1, p, a, u + p - 1 - L) - FS(n+1, p, a, u)] with u = h(lo).
    */
  def rangeSample(a: Long, b: Long, lo: Long, n: Long, level: Int): Long = {
    val L = levelBound(level)
    if (L >= P - 1) return n + 1
    val u = hash(a, b, lo)
    (n + 1) - (floorSum(n + 1, P, a, u + P - 1 - L) - floorSum(n + 1, P, a, u))
  }

  /** Delta_e^i: the offset of the smallest selected integer of [lo, lo + n] at `level`, or -1. */
  def firstSelected(a: Long, b: Long, lo: Long, n: Long, level: Int): Long =
    minHit(P, a, hash(a, b, lo), n, levelBound(level))
}
