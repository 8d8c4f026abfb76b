package ecmsketch.dwave

import ecmsketch.format.{ByteReader, ByteWriter}
import ecmsketch.window.{CellFamily, WindowCounter}

/** Deterministic-wave cells (cell kind 2). The cell encoding is documented in docs/FORMAT.md
  * ("Deterministic-wave cell"); max_arrivals is not part of the cell (it is in the header).
  */
final class DwCells(val config: DwConfig) extends CellFamily {
  def id: Int = CellFamily.DetWaveId
  def name: String = "dwave"
  def epsilon: Double = config.epsilon
  def window: Long = config.window
  def create(): WindowCounter = new DetWave(config)
  def merge(cells: Seq[WindowCounter]): WindowCounter = ???
  def errorBound(depth: Int): Double = StrictMath.pow(1.0 + config.epsilon, depth + 1.0) - 1.0
  def write(c: WindowCounter, out: ByteWriter, base: Long): Unit = ???
  def read(in: ByteReader, base: Long, lastTs: Long): WindowCounter = ???
  override def equals(o: Any): Boolean = o match { case e: DwCells => e.config == config; case _ => false }
  override def hashCode: Int = config.hashCode
}
