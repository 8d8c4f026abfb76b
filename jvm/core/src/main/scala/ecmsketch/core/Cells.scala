package ecmsketch.core

/** A sliding-window counter that can be a cell of an ECM-sketch. Each cell kind (a [[CellKind]] in its
  * family's package) builds its [[CellOps]] from the sketch's parameters.
  */
trait WindowCounter {
  def add(ts: Long): Unit
  def add(ts: Long, v: Long): Unit
  /** One arrival at each of `ts(0 until n)` (non-decreasing): the same state as `n` calls of `add(ts)`. */
  final def addSorted(ts: Array[Long], n: Int): Unit = addSorted(ts, 0, n)
  /** One arrival at each of `ts(from until until)` (non-decreasing): the same state as one `add` each. */
  def addSorted(ts: Array[Long], from: Int, until: Int): Unit = { var i = from; while (i < until) { add(ts(i)); i += 1 } }
  /** Estimate of the weight with timestamps >= lo. */
  def estimateFrom(lo: Long): Double
  def isEmpty: Boolean
  def lastTs: Long
  /** Moves the clock to `now` (>= lastTs), dropping what lies wholly before the window. */
  def advanceTo(now: Long): Unit
  /** Whether the counter would still hold weight after [[advanceTo]](now), for `now >= lastTs`
    * (without changing it): false when everything it holds lies at or before now - N, so that no
    * query of a sketch whose clock is `now` can reach it (docs/design/merging.md, "Time-disjoint merges").
    * The default, !isEmpty, is conservative.
    */
  def retainsAt(now: Long): Boolean = !isEmpty
  /** Weight the cell holds, each unit of it from a row of the sketch (the codec checks it against
    * the total weight), as each cell kind counts it.
    */
  def heldWeight: Long
}

/** The operations on window counters of one cell kind and one set of parameters (a [[CellKind]]
  * builds them from an ECM-sketch's plan): how to create, merge and encode them, and the relative
  * error a counter certifies after `depth` levels of order-preserving merge.
  */
trait CellOps {
  /** Cell kind id in the binary format. */
  def id: Int
  def name: String
  def epsilon: Double
  def window: Long
  def create(): WindowCounter
  /** A new counter whose event ids derive from `salt`, for cells whose merges recognise each event
    * by an id; counters without event ids ignore it.
    */
  def create(salt: Long): WindowCounter = create()
  /** n-way order-preserving merge of cells (null = empty cell); null if all are empty. */
  def merge(cells: Seq[WindowCounter]): WindowCounter
  /** Relative error of a cell after `depth` merge levels. */
  def errorBound(depth: Int): Double
  def write(c: WindowCounter, out: ByteWriter, base: Long): Unit
  /** Reads a cell written by [[write]]; null for an empty cell. Validates every field. */
  def read(in: ByteReader, base: Long, lastTs: Long): WindowCounter
  /** Whether the family has a time-disjoint merge ([[concat]], docs/design/merging.md "Time-disjoint merges"). */
  def concatenates: Boolean = false
  /** Lower bound of a non-empty cell's retained timestamps, and the end of its newest bucket (the
    * time-disjoint test); only for a family that [[concatenates]].
    */
  def lowerTs(c: WindowCounter): Long = throw new UnsupportedOperationException(s"$name cells have no time-disjoint merge")
  def newestEnd(c: WindowCounter): Long = throw new UnsupportedOperationException(s"$name cells have no time-disjoint merge")
  /** Time-disjoint merge of non-empty cells of this family, oldest first, each one's lower timestamp at
    * or after every older one's newest end: the result answers within its inputs' bound, with no merge
    * level added. Only for a family that [[concatenates]].
    */
  def concat(cells: Seq[WindowCounter]): WindowCounter = throw new UnsupportedOperationException(s"$name cells have no time-disjoint merge")
  /** The lowest format version whose readers read this cell's encoding (docs/FORMAT.md). */
  def formatVersion(c: WindowCounter): Int = 1
}
