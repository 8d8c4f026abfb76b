package ecmsketch.ecm.dyadic

/** An answer with the interval its certified bound allows: lower <= true value <= upper (with the
  * probability stated in docs/design/dyadic.md, "Dyadic ECM-sketch").
  */
final case class Estimate(estimate: Double, lower: Double, upper: Double)

/** A reported heavy hitter / top-k key: `key` in the universe's key domain (a BIGINT key, or the
  * smallest DOUBLE of the key's bucket for double keys, or the universe index of a string / binary
  * key's fingerprint, whose original bytes are `bytes`; null for the other domains).
  */
final case class KeyEstimate(key: Long, doubleKey: Double, estimate: Double, lower: Double, upper: Double,
                             bytes: Array[Byte] = null)
