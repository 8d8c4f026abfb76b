package ecmsketch.hash

import java.nio.charset.StandardCharsets

/** Stable hashing, identical on every JVM, site and version of this library (golden vectors in
  * HashingSuite). A key is first reduced to a 64-bit fingerprint:
  *   - integers (INT, BIGINT): `mix64(value)`, a bijection on 64-bit values (SplitMix64 finalizer);
  *   - strings: XXH64 (seed 0) of the UTF-8 bytes; binary keys: XXH64 of the bytes.
  * Count-Min rows then use a pairwise-independent family over the field of the Mersenne prime
  * p = 2^61 - 1: `t = (a*x + b) mod p`, mapped to a column by `((t >> 29) * w) >> 32` with x = fingerprint mod p and (a, b) drawn from
  * the sketch seed by SplitMix64. Two distinct 64-bit fingerprints coincide mod p with
  * probability about 2^-61.
  */
object Hashing {
  /** Default hash seed of every keyed sketch kind: identical on every site unless the user picks another. */
  final val DefaultSeed: Long = 0x5EED5EEDL

  final val MersenneP: Long = (1L << 61) - 1

  private final val P1 = 0x9E3779B185EBCA87L
  private final val P2 = 0xC2B2AE3D27D4EB4FL
  private final val P3 = 0x165667B19E3779F9L
  private final val P4 = 0x85EBCA77C2B2AE63L
  private final val P5 = 0x27D4EB2F165667C5L

  /** SplitMix64 finalizer: a bijection on 64-bit values with good avalanche. */
  @inline def mix64(v: Long): Long = {
    var z = v
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL
    z ^ (z >>> 31)
  }

  /** Fingerprint of an integral key. INT and BIGINT of the same value agree. */
  @inline def fingerprintLong(v: Long): Long = mix64(v)

  /** Fingerprint of a string key: XXH64 of its UTF-8 encoding (equal to its BINARY form). */
  def fingerprintString(s: String): Long = {
    val b = s.getBytes(StandardCharsets.UTF_8)
    xxh64(b, 0, b.length, 0L)
  }

  /** Fingerprint of a binary key. */
  def fingerprintBytes(b: Array[Byte]): Long = xxh64(b, 0, b.length, 0L)

  @inline private def getLong(b: Array[Byte], i: Int): Long =
    (b(i) & 0xFFL) | ((b(i + 1) & 0xFFL) << 8) | ((b(i + 2) & 0xFFL) << 16) |
      ((b(i + 3) & 0xFFL) << 24) | ((b(i + 4) & 0xFFL) << 32) | ((b(i + 5) & 0xFFL) << 40) |
      ((b(i + 6) & 0xFFL) << 48) | ((b(i + 7) & 0xFFL) << 56)

  @inline private def getInt(b: Array[Byte], i: Int): Long =
    (b(i) & 0xFFL) | ((b(i + 1) & 0xFFL) << 8) | ((b(i + 2) & 0xFFL) << 16) | ((b(i + 3) & 0xFFL) << 24)

  @inline private def round(acc: Long, input: Long): Long =
    java.lang.Long.rotateLeft(acc + input * P2, 31) * P1

  @inline private def mergeRound(acc: Long, v: Long): Long = (acc ^ round(0L, v)) * P1 + P4

  /** XXH64 (the xxHash 64-bit algorithm) of `len` bytes of `b` from `off`. */
  def xxh64(b: Array[Byte], off: Int, len: Int, seed: Long): Long = {
    val end = off + len
    var i = off
    var h = 0L
    if (len >= 32) {
      var v1 = seed + P1 + P2
      var v2 = seed + P2
      var v3 = seed
      var v4 = seed - P1
      val limit = end - 32
      while (i <= limit) {
        v1 = round(v1, getLong(b, i)); v2 = round(v2, getLong(b, i + 8))
        v3 = round(v3, getLong(b, i + 16)); v4 = round(v4, getLong(b, i + 24))
        i += 32
      }
      h = java.lang.Long.rotateLeft(v1, 1) + java.lang.Long.rotateLeft(v2, 7) +
        java.lang.Long.rotateLeft(v3, 12) + java.lang.Long.rotateLeft(v4, 18)
      h = mergeRound(h, v1); h = mergeRound(h, v2); h = mergeRound(h, v3); h = mergeRound(h, v4)
    } else h = seed + P5
    h += len.toLong
    while (i + 8 <= end) {
      h ^= round(0L, getLong(b, i))
      h = java.lang.Long.rotateLeft(h, 27) * P1 + P4
      i += 8
    }
    if (i + 4 <= end) {
      h ^= getInt(b, i) * P1
      h = java.lang.Long.rotateLeft(h, 23) * P2 + P3
      i += 4
    }
    while (i < end) {
      h ^= (b(i) & 0xFFL) * P5
      h = java.lang.Long.rotateLeft(h, 11) * P1
      i += 1
    }
    h ^= h >>> 33; h *= P2; h ^= h >>> 29; h *= P3; h ^= h >>> 32
    h
  }

  /** Reduces an unsigned 64-bit value modulo 2^61 - 1. */
  @inline def modP(x: Long): Long = {
    var r = (x & MersenneP) + (x >>> 61)
    if (r >= MersenneP) r -= MersenneP
    r
  }

  /** (a * b) mod (2^61 - 1) for a, b in [0, p). */
  @inline def mulModP(a: Long, b: Long): Long = {
    val lo = a * b
    val hi = Math.multiplyHigh(a, b)
    // a*b = hi*2^64 + lo (both < 2^122, so hi < 2^58 and the product is non-negative)
    val r = (lo & MersenneP) + ((lo >>> 61) | (hi << 3))
    modP(r)
  }

  /** The SplitMix64 generator step used to derive hash coefficients from a seed. */
  final class SplitMix64(private var state: Long) {
    def next(): Long = { state += 0x9E3779B97F4A7C15L; mix64(state) }
  }

  /** Coefficients (a_j, b_j) of `depth` pairwise-independent row hashes for `seed`, as
    * `Array(a_0, b_0, a_1, b_1, ...)`, with a_j in [1, p) and b_j in [0, p).
    */
  def rowCoefficients(seed: Long, depth: Int): Array[Long] = {
    val g = new SplitMix64(seed)
    val out = new Array[Long](2 * depth)
    var j = 0
    while (j < depth) {
      out(2 * j) = java.lang.Long.remainderUnsigned(g.next(), MersenneP - 1) + 1
      out(2 * j + 1) = java.lang.Long.remainderUnsigned(g.next(), MersenneP)
      j += 1
    }
    out
  }

  /** Column of fingerprint `fp` in a row with coefficients (a, b) and width w: the pairwise-
    * independent value t = (a x + b) mod p, x = fp mod p, mapped to [0, w) by its top 32 bits
    * (multiply-shift range reduction, no division).
    */
  @inline def column(fp: Long, a: Long, b: Long, w: Int): Int = columnOfReduced(modP(fp), a, b, w)

  /** [[column]] for x already reduced modulo p (reduce once per key, not once per row). */
  @inline def columnOfReduced(x: Long, a: Long, b: Long, w: Int): Int = {
    var t = mulModP(a, x) + b
    if (t >= MersenneP) t -= MersenneP
    (((t >>> 29) * w) >>> 32).toInt
  }
}
