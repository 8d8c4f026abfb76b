package ecmsketch.core

/** State an ingest keeps beside its runs of sketches and merges with them (such as the candidate keys
  * a family keeps for string keys): absorbed from other partial aggregates,
  * written after a partial bundle's trailer and attached to the finished sketch.
  */
trait Annex {
  /** Merges `other` (an annex of the same kind and parameters) into this one. */
  def absorb(other: Annex): Unit
  def encode(out: ByteWriter): Unit
  def copy(): Annex
}
