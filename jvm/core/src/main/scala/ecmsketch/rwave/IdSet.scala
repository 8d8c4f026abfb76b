package ecmsketch.rwave

/** Scratch space (per thread): an open-addressing set of ids with generation stamps, so it is
  * never cleared, and buffers for merges and encoding.
  */
private[rwave] final class IdSet {
  private var keys = new Array[Long](64)
  private var stamps = new Array[Int](64)
  private var stamp = 1
  private var shift = 64 - 6
  private var mask = 63
  /** Ids in the current generation (the table grows past half full). */
  private var count = 0

  /** Empties the set and makes room for `n` ids (more may be added: the table then grows). A table
    * far larger than `n` needs is replaced by a smaller one, so that few ids stay within the cache.
    */
  def reset(n: Int): Unit = {
    if (2L * n > keys.length || (keys.length > 4096 && keys.length > 32L * n)) allocate(n)
    stamp += 1
    if (stamp == Int.MaxValue) { java.util.Arrays.fill(stamps, 0); stamp = 1 }
    count = 0
  }

  private def allocate(n: Int): Unit = {
    var size = 64
    while (size < 2L * n) size *= 2
    keys = new Array[Long](size); stamps = new Array[Int](size)
    mask = size - 1; shift = 64 - Integer.numberOfTrailingZeros(size); stamp = 0
  }

  /** Adds `id`; false if it was present. */
  def add(id: Long): Boolean = {
    var i = ((id * 0x9E3779B97F4A7C15L) >>> shift).toInt
    while (stamps(i) == stamp) {
      if (keys(i) == id) return false
      i = (i + 1) & mask
    }
    stamps(i) = stamp; keys(i) = id
    count += 1
    if (2 * count > keys.length) grow()
    true
  }

  /** Doubles the table, keeping the current generation's ids. */
  private def grow(): Unit = {
    val oldKeys = keys; val oldStamps = stamps; val live = stamp
    allocate(keys.length)
    stamp = 1
    var j = 0
    while (j < oldKeys.length) {
      if (oldStamps(j) == live) {
        val id = oldKeys(j)
        var i = ((id * 0x9E3779B97F4A7C15L) >>> shift).toInt
        while (stamps(i) == stamp) i = (i + 1) & mask
        stamps(i) = stamp; keys(i) = id
      }
      j += 1
    }
  }

  def contains(id: Long): Boolean = {
    var i = ((id * 0x9E3779B97F4A7C15L) >>> shift).toInt
    while (stamps(i) == stamp) {
      if (keys(i) == id) return true
      i = (i + 1) & mask
    }
    false
  }
}
