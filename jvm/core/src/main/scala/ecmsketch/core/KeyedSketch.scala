package ecmsketch.core

/** A sketch of keyed rows (the ECM-sketch counts weights per key, the distinct-count sketch counts
  * distinct values): one add per key type, each recording the sketch's [[KeyType]].
  */
trait KeyedSketch {
  def addKey(key: Long, ts: Long, v: Long): Unit
  def addKey(key: String, ts: Long, v: Long): Unit
  def addKey(key: Array[Byte], ts: Long, v: Long): Unit
}
