package ecmsketch.ecm.dyadic

import scala.collection.mutable

import ecmsketch.core.{Annex, ByteReader, ByteWriter, SketchException}
import ecmsketch.hash.Hashing

/** The candidate keys of a dyadic sketch of string or binary keys (docs/design/string-keys.md, "String and
  * binary keys"): the dyadic levels count 64-bit key fingerprints; this table keeps the original
  * bytes of the frequent ones, so that heavy hitters and top-k can return keys.
  *
  * Time is cut into epochs of one window (epoch = floor(ts / window); a single epoch for an
  * unbounded window). The table holds a Misra-Gries summary of `capacity` counters for each of the
  * two newest epochs: a key whose weight in epoch e exceeds D_e is in epoch e's summary, where
  * D_e <= (N_e - C_e) / (capacity + 1) is the summary's total decrement (N_e the weight added to
  * it, C_e the sum of its counters). A range of r <= window time units ending at or after the
  * newest row lies within the two newest epochs, so every key with weight > D_cur + D_prev in the
  * range is in the table ([[recallFloor]]). Merges (the Misra-Gries merge of Agarwal et al.,
  * epoch by epoch) keep this with N the merged weight.
  */
final class KeyTable(val capacity: Int, val epochLength: Long) extends Annex {
  import KeyTable._
  SketchException.require(capacity >= 1 && capacity <= MaxCapacity, s"candidates must be in [1, $MaxCapacity], got $capacity")
  SketchException.require(epochLength >= 0, s"epoch length must be >= 0, got $epochLength")

  /** Id of the newest epoch (NoEpoch before the first row). */
  private[dyadic] var epoch: Long = NoEpoch
  private[dyadic] var cur = new Summary
  private[dyadic] var prev = new Summary

  def epochOf(ts: Long): Long = if (epochLength == 0) 0L else Math.floorDiv(ts, epochLength)

  private def advance(e: Long): Unit = {
    if (epoch != NoEpoch && e == epoch + 1) { prev = cur; cur = new Summary }
    else { prev = new Summary; cur = new Summary }
    epoch = e
  }

  /** Adds weight `v` of key `key` (fingerprint `fp`) at `ts`; rows two epochs or more behind the
    * newest are ignored (no range within the window of the newest row reaches them).
    */
  def add(fp: Long, key: Array[Byte], ts: Long, v: Long): Unit = if (v > 0) {
    val e = epochOf(ts)
    if (epoch == NoEpoch || e > epoch) advance(e)
    if (e == epoch) cur.add(fp, key, v, capacity)
    else if (e == epoch - 1) prev.add(fp, key, v, capacity)
  }

  /** Weight bound: every key whose weight in a range r <= window (ending at or after the newest
    * row) exceeds this is in the table.
    */
  def recallFloor: Double = { compact(); (cur.decrement + prev.decrement) / (capacity + 1.0) }

  /** Keys held (both epochs, deduplicated by fingerprint). */
  def size: Int = { compact(); (cur.map.keySet ++ prev.map.keySet).size }

  /** The candidates: fingerprint -> (key bytes, counter sum over both epochs). */
  def candidates: Map[Long, (Array[Byte], Long)] = {
    compact()
    val out = mutable.HashMap[Long, (Array[Byte], Long)]()
    Seq(cur, prev).foreach(_.map.foreach { case (fp, en) =>
      val old = out.get(fp)
      out(fp) = (old.map(_._1).getOrElse(en.key), old.map(_._2).getOrElse(0L) + en.count)
    })
    out.toMap
  }

  /** Prunes both summaries to `capacity` counters (they hold up to 2 * capacity between prunes). */
  def compact(): Unit = { cur.prune(capacity); prev.prune(capacity) }

  def absorb(other: Annex): Unit = other match {
    case o: KeyTable =>
      SketchException.require(o.capacity == capacity && o.epochLength == epochLength,
        s"cannot merge candidate-key tables of capacity $capacity / epoch $epochLength and ${o.capacity} / ${o.epochLength}")
      if (o.epoch != NoEpoch) {
        if (epoch == NoEpoch || o.epoch > epoch) advance(o.epoch)
        if (o.epoch == epoch) { cur.merge(o.cur, capacity); prev.merge(o.prev, capacity) }
        else if (o.epoch == epoch - 1) prev.merge(o.cur, capacity)
      }
    case _ => throw new SketchException("cannot merge a candidate-key table with another annex")
  }

  def copy(): KeyTable = {
    val t = new KeyTable(capacity, epochLength)
    t.epoch = epoch; t.cur = cur.copy(); t.prev = prev.copy()
    t
  }

  /** Layout in docs/FORMAT.md (kind 5, "candidate keys"). Compacts first. */
  def encode(out: ByteWriter): Unit = {
    compact()
    out.putInt(capacity)
    out.putLong(epochLength)
    out.putLong(epoch)
    Seq(cur, prev).foreach { s =>
      out.putLong(s.weight)
      val es = s.map.toSeq.sortBy(_._1) // deterministic bytes
      out.putInt(es.size)
      es.foreach { case (fp, en) => out.putLong(fp); out.putLong(en.count); out.putInt(en.key.length); out.putBytes(en.key) }
    }
  }

  def sameAs(o: KeyTable): Boolean = { compact(); o.compact(); epoch == o.epoch && cur.sameAs(o.cur) && prev.sameAs(o.prev) }
}

object KeyTable {
  final val DefaultCapacity = 1024
  final val MaxCapacity = 1 << 20
  final val NoEpoch = Long.MinValue
  /** Longest key a dyadic sketch takes (a longer one is refused, [[checkKey]]). */
  final val MaxKeyBytes = 1 << 16

  def checkKey(key: Array[Byte]): Unit =
    SketchException.require(key.length <= MaxKeyBytes, s"a dyadic sketch key must be at most $MaxKeyBytes bytes, got ${key.length}")

  private[dyadic] final class Entry(val key: Array[Byte], var count: Long)

  /** A Misra-Gries summary: counters by fingerprint, total weight added and (implicitly) the total decrement. */
  private[dyadic] final class Summary {
    val map = mutable.HashMap[Long, Entry]()
    var weight = 0L

    /** N - C: the weight subtracted from counters (the decrement bound is this / (capacity + 1)). */
    def decrement: Double = weight.toDouble - map.valuesIterator.map(_.count.toDouble).sum

    def add(fp: Long, key: Array[Byte], v: Long, capacity: Int): Unit = {
      if (Long.MaxValue - weight < v) throw new SketchException("total weight overflows 2^63 - 1")
      weight += v
      map.get(fp) match {
        case Some(e) => e.count += v
        case None => map(fp) = new Entry(key.clone(), v); if (map.size > 2 * capacity) prune(capacity)
      }
    }

    /** Subtracts the (capacity+1)-th largest counter from every counter and drops those at or below 0. */
    def prune(capacity: Int): Unit = if (map.size > capacity) {
      val counts = map.valuesIterator.map(_.count).toArray
      java.util.Arrays.sort(counts)
      val c = counts(counts.length - 1 - capacity)
      // (not filterInPlace: it is 2.13-only, and the core also builds for Scala 2.12)
      val dead = mutable.ArrayBuffer[Long]()
      map.foreach { case (fp, e) => e.count -= c; if (e.count <= 0) dead += fp }
      dead.foreach(map.remove)
    }

    def merge(o: Summary, capacity: Int): Unit = {
      if (Long.MaxValue - weight < o.weight) throw new SketchException("total weight overflows 2^63 - 1")
      weight += o.weight
      o.map.foreach { case (fp, e) =>
        map.get(fp) match {
          case Some(x) => x.count += e.count
          case None => map(fp) = new Entry(e.key, e.count)
        }
      }
      prune(capacity)
    }

    def copy(): Summary = {
      val s = new Summary
      s.weight = weight
      map.foreach { case (fp, e) => s.map(fp) = new Entry(e.key, e.count) }
      s
    }

    def sameAs(o: Summary): Boolean = weight == o.weight && map.size == o.map.size && map.forall { case (fp, e) =>
      o.map.get(fp).exists(x => x.count == e.count && java.util.Arrays.equals(x.key, e.key))
    }
  }

  /** Reads a table written by [[KeyTable.encode]], validating every field (the capacity and epoch
    * length must be the ones the sketch's parameters give).
    */
  def decode(in: ByteReader, capacity: Int, epochLength: Long): KeyTable = {
    val cap = in.getInt("candidates")
    if (cap < 1 || cap > MaxCapacity) throw new SketchException(s"corrupt sketch: candidates $cap outside [1, $MaxCapacity]")
    if (capacity > 0 && cap != capacity) throw new SketchException(s"corrupt sketch: candidates $cap, expected $capacity")
    val el = in.getLong("epoch length")
    if (el != epochLength) throw new SketchException(s"corrupt sketch: candidate epoch length $el is not the window's $epochLength")
    val t = new KeyTable(cap, el)
    t.epoch = in.getLong("candidate epoch")
    if (el == 0 && t.epoch != 0 && t.epoch != NoEpoch) throw new SketchException(s"corrupt sketch: candidate epoch ${t.epoch} of an unbounded window")
    Seq("current", "previous").foreach { which =>
      val s = new Summary
      s.weight = in.getLong(s"$which epoch weight")
      if (s.weight < 0) throw new SketchException(s"corrupt sketch: $which epoch weight ${s.weight} is negative")
      val n = in.getInt(s"$which epoch candidates")
      if (n < 0 || n > cap) throw new SketchException(s"corrupt sketch: $which epoch holds $n candidates, more than $cap")
      if (n > 0 && t.epoch == NoEpoch) throw new SketchException(s"corrupt sketch: candidates without an epoch")
      var sum = 0L
      var i = 0
      while (i < n) {
        val fp = in.getLong("candidate fingerprint")
        val c = in.getLong("candidate count")
        if (c <= 0 || c > s.weight - sum) throw new SketchException(s"corrupt sketch: candidate count $c outside [1, ${s.weight - sum}]")
        sum += c
        val len = in.getInt("candidate key length")
        if (len < 0 || len > MaxKeyBytes || len > in.remaining) throw new SketchException(s"corrupt sketch: candidate key length $len")
        val key = in.getBytes(len, "candidate key")
        if (Hashing.fingerprintBytes(key) != fp) throw new SketchException("corrupt sketch: a candidate key does not match its fingerprint")
        if (s.map.contains(fp)) throw new SketchException("corrupt sketch: a candidate key appears twice")
        s.map(fp) = new Entry(key, c)
        i += 1
      }
      if (which == "current") t.cur = s else t.prev = s
    }
    t
  }
}
