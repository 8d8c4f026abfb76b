package ecmsketch.decayed

import ecmsketch.core.SketchException
import ecmsketch.hash.Hashing

/** One stored observation at one level: its integer id (in [0, idSpace)), integer weight, value and
  * timestamp, the level's key (the expiry time in a fixed-decay sketch, the timestamp in the general
  * one) and, in the general sketch, RangeSample of its undecayed range at that level.
  */
final class Entry(val id: Long, val w: Long, val v: Double, val t: Long, val key: Long, val rs: Long)

/** Parameters of a decayed sketch (the encoding's header fields). */
final case class DecayedParams(decay: Option[Decay], epsilon: Double, delta: Double, constant: Double,
                               maxWeight: Long, resolution: Long, seed: Long, tsMicros: Boolean) {
  import DecayedSketch._
  SketchException.require(!epsilon.isNaN && epsilon >= MinEpsilon && epsilon < 1.0, s"epsilon must be in [$MinEpsilon, 1), got $epsilon")
  SketchException.require(!delta.isNaN && delta >= MinDelta && delta < 1.0, s"delta must be in [$MinDelta, 1), got $delta")
  SketchException.require(!constant.isNaN && constant >= MinConstant && constant <= MaxConstant,
    s"constant C (tau = C / epsilon^2) must be in [$MinConstant, $MaxConstant], got $constant")
  SketchException.require(maxWeight >= 1 && maxWeight <= MaxWeightLimit, s"max_weight must be in [1, $MaxWeightLimit], got $maxWeight")
  SketchException.require(resolution >= 1 && resolution <= MaxResolution, s"resolution must be in [1, $MaxResolution], got $resolution")
  SketchException.require(decay.exists(!_.isInstanceOf[Decay.Window]) || resolution == 1,
    "resolution applies to the 'exp' and 'poly' decays only (the window and the general sketch keep integer weights exactly)")
  SketchException.require(maxWeight.toDouble * resolution.toDouble <= MaxScaledWeight.toDouble,
    s"max_weight * resolution must be at most 2^40, got $maxWeight * $resolution")

  /** tau = ceil(C / epsilon^2). */
  val tau: Int = {
    val x = math.ceil(constant / (epsilon * epsilon))
    SketchException.require(x <= MaxTau, s"tau = C / epsilon^2 = $x exceeds $MaxTau; use a larger epsilon or a smaller C")
    x.toInt
  }
  val copies: Int = copiesFor(delta)
  /** w_max of the ranges: the largest scaled weight. */
  val wMax: Long = maxWeight * resolution
  /** id_max + 1: the largest id space with 10 Y < p for Y = w_max (id_max + 1) (CTX §3.2). */
  val idSpace: Long = (Arith.P - 1) / (10L * wMax)
  /** Y = w_max (id_max + 1); 10 Y < p < 20 Y holds. */
  val upsilon: Long = wMax * idSpace
  /** M = ceil(log2 Y): levels 0..M. */
  val topLevel: Int = 64 - java.lang.Long.numberOfLeadingZeros(upsilon - 1)
  val ticksPerUnit: Long = if (tsMicros) 1000000L else 1L
  val integral: Option[IntegralDecay] = decay.map(d => IntegralDecay.of(d, ticksPerUnit))
  /** (a_j, b_j) of every copy, a in [1, p), b in [0, p). */
  val coefficients: Array[Long] = Hashing.rowCoefficients(seed ^ CoefficientSalt, copies)
}
