package ecmsketch.rwave

import ecmsketch.format.{ByteReader, ByteWriter}
import ecmsketch.window.{CellFamily, WindowCounter}

/** Randomized-wave cells (cell kind 3). Merges are lossless, so the bound does not grow with depth. */
final class RwCells(val config: RwConfig) extends CellFamily {
  def id: Int = CellFamily.RandWaveId
  def name: String = "rwave"
  def epsilon: Double = config.epsilon
  def window: Long = config.window
  def create(): WindowCounter = new RandWave(config)
  def merge(cells: Seq[WindowCounter]): WindowCounter = ???
  def errorBound(depth: Int): Double = config.epsilon
  def write(c: WindowCounter, out: ByteWriter, base: Long): Unit = ???
  def read(in: ByteReader, base: Long, lastTs: Long): WindowCounter = ???
  override def equals(o: Any): Boolean = o match { case e: RwCells => e.config == config; case _ => false }
  override def hashCode: Int = config.hashCode
}
