package ecmsketch.format

import ecmsketch.Families
import ecmsketch.dwave.DwCellKind
import ecmsketch.rwave.RwCellKind
import ecmsketch.asynchronous.AsyncSketch
import ecmsketch.decayed.{Decay, DecayedSketch}
import ecmsketch.frequent.FrequentSketch
import ecmsketch.quantile.QuantileSketch
import ecmsketch.dwave.DwSketch
import ecmsketch.ecm.dyadic.DyadicSketch
import ecmsketch.core.{Bundle, ByteReader, Codec, CounterSketch, KeyType, WindowSpec}
import ecmsketch.ecm.{EcmSketch, Planner, QueryKind}
import ecmsketch.format.SketchCodec
import ecmsketch.ingest.{Ingest, SketchOps}
import ecmsketch.rwave.{DistinctSketch, RandWave}
import ecmsketch.window.EhSketch

/** The fixed, small inputs behind the golden bytes in `src/test/resources/golden/` (GoldenSuite),
  * and helpers to read and write the hex files. Every input is deterministic: rebuilding a case
  * gives the stored bytes as long as the format and the algorithms that feed it are unchanged.
  */
object GoldenInputs {
  def hex(b: Array[Byte]): String = b.map(x => f"${x & 0xFF}%02x").mkString

  def unhex(s: String): Array[Byte] = {
    require(s.length % 2 == 0, s"odd hex length ${s.length}")
    Array.tabulate(s.length / 2)(i => Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16).toByte)
  }

  /** The bytes stored in golden/<name>.hex: '#' lines are comments, whitespace is ignored. */
  def load(name: String): Array[Byte] = {
    val in = getClass.getResourceAsStream(s"/golden/$name.hex")
    assert(in != null, s"missing test resource golden/$name.hex")
    val text = try new String(in.readAllBytes(), "US-ASCII") finally in.close()
    unhex(text.linesIterator.filterNot(_.trim.startsWith("#")).mkString.replaceAll("\\s", ""))
  }

  /** Golden bytes of format version 4 (with a checksum) live under golden/v4/, beside the checksum-less
    * files of versions 1 to 3, which keep the name they had.
    */
  def loadV4(name: String): Array[Byte] = load(s"v4/$name")

  /** What a release before version 4 wrote for the same sketch or bundle: the bytes of a version-4 sketch
    * without the checksum (bytes 60-63) and its flag, with the version byte of the body's layout
    * (1 to 3); for a bundle, its parts so converted, and a partial bundle without its final checksum. A version-4 sketch carries the body of versions 1
    * to 3 unchanged, so this must give the older golden files exactly.
    */
  def withoutChecksum(b: Array[Byte]): Array[Byte] = new String(b.take(4), "US-ASCII") match {
    case "ECMS" if b(4) < Codec.ChecksumVersion => b // a part that an older release wrote, kept as it is
    case "ECMS" =>
      assert(b(4) == Codec.ChecksumVersion, s"format version ${b(4)}, not ${Codec.ChecksumVersion}")
      val out = b.take(Codec.HeaderSize) ++ b.drop(Codec.ChecksumHeaderSize)
      out(4) = Codec.layoutVersion(Families.decode(b)).toByte
      out(7) = (out(7) & ~Codec.ChecksumFlag).toByte
      out
    case magic @ ("ECMB" | "ECMM") =>
      // partial bundles (ECMB) of versions 3 and 4 end with a checksum; without it they are versions 1 and 2
      val checked = magic == "ECMB" && b(4) >= Ingest.ChecksumVersion
      val in = new ByteReader(b, if (checked) b.length - 4 else b.length)
      in.getBytes(5, "magic and version")
      val parts = Bundle.readParts(in, Int.MaxValue, "part")
      val trailer = in.getBytes(in.remaining, "trailer")
      // runs are kept as bytes: convert those written as version 4, keep any other (older, or damaged) as is
      def run(p: Array[Byte]): Array[Byte] = if (Codec.versionOfBytes(p) == Codec.ChecksumVersion) withoutChecksum(p) else p
      Bundle.write(b.take(4), if (checked) b(4) - 2 else b(4).toInt, parts.map(run))(_.putBytes(trailer))
    case other => throw new IllegalArgumentException(s"not a sketch or bundle: magic '$other'")
  }

  /** Writes golden/v4/<name>.hex for every case of [[all]] whose file does not exist yet under `dir`
    * (golden files are never overwritten: a changed encoding must fail GoldenSuite, not rewrite it).
    */
  def writeMissingV4(dir: java.io.File, cases: Seq[(String, () => Array[Byte])] = all): Seq[String] = {
    dir.mkdirs()
    cases.flatMap { case (name, build) =>
      val f = new java.io.File(dir, s"$name.hex")
      if (f.exists()) None
      else {
        val text = s"# $name: format version 4 (GoldenInputs.$name input; GoldenSuite)\n" + hex(build()).grouped(64).mkString("\n") + "\n"
        java.nio.file.Files.write(f.toPath, text.getBytes("US-ASCII"))
        Some(name)
      }
    }
  }

  /** A row of a keyed stream: key, timestamp, weight. */
  final case class Row(key: Any, ts: Long, w: Long)

  // ------------------------------------------------------------------ exponential histograms

  /** EH, time window 100, epsilon 0.25, no merge levels: ts 1..12, weight 3 at multiples of 5, else 1. */
  val ehSpec = WindowSpec(countWindow = false, tsMicros = false, window = 100)
  val ehRows: Seq[(Long, Long)] = (1L to 12L).map(t => (t, if (t % 5 == 0) 3L else 1L))
  def eh(): EhSketch = counter(EhSketch.create(ehSpec, 0.25, 0), ehRows)

  /** EH, count window of the last 8 arrivals, epsilon 0.3: sequence numbers 1..20, weight 1. */
  val ehCountSpec = WindowSpec(countWindow = true, tsMicros = false, window = 8)
  val ehCountRows: Seq[(Long, Long)] = (1L to 20L).map(t => (t, 1L))
  def ehCount(): EhSketch = counter(EhSketch.create(ehCountSpec, 0.3, 0), ehCountRows)

  /** Two EHs (time window 50, epsilon 0.3 after 1 merge level) merged once: site A has odd ts
    * 1..39 with weight 1, site B ts 2, 6, .., 38 with weight 2.
    */
  val ehMergedSpec = WindowSpec(countWindow = false, tsMicros = false, window = 50)
  val ehMergedA: Seq[(Long, Long)] = (1L to 39L by 2).map(t => (t, 1L))
  val ehMergedB: Seq[(Long, Long)] = (2L to 38L by 4).map(t => (t, 2L))
  def ehMergedSite(rows: Seq[(Long, Long)]): EhSketch = counter(EhSketch.create(ehMergedSpec, 0.3, 1), rows)
  def ehMerged(): EhSketch = EhSketch.merge(Seq(ehMergedSite(ehMergedA), ehMergedSite(ehMergedB)))

  // ------------------------------------------------------------------ deterministic waves

  /** Deterministic wave, time window 40, epsilon 0.25, max_arrivals 100: ts -30..29 (negative
    * timestamps included), weight (ts + 30) % 4 (so some rows weigh 0).
    */
  val dwSpec = WindowSpec(countWindow = false, tsMicros = false, window = 40)
  val dwRows: Seq[(Long, Long)] = (-30L to 29L).map(t => (t, (t + 30) % 4))
  def dw(): DwSketch = counter(DwSketch.create(dwSpec, 0.25, 0, 100L), dwRows)

  /** Deterministic wave, time window 40, epsilon 0.5, max_arrivals 8, fed 40 unit arrivals at ts
    * 1..40: more than max_arrivals within one window, so the wave holds an overflow record.
    */
  val dwOverflowRows: Seq[(Long, Long)] = (1L to 40L).map(t => (t, 1L))
  def dwOverflow(): DwSketch = counter(DwSketch.create(dwSpec, 0.5, 0, 8L), dwOverflowRows)

  // ------------------------------------------------------------------ distinct-count sketches

  /** Distinct-count sketch, time window 100, epsilon 0.5, delta 0.1, seed 7: string values
    * u1..u5 at ts 1..10 (value u(1 + t % 5)). Level 0 is not full: the cell is level 0 only.
    */
  val distinctSmallSpec = WindowSpec(countWindow = false, tsMicros = false, window = 100)
  val distinctSmallRows: Seq[Row] = (1L to 10L).map(t => Row(s"u${1 + t % 5}", t, 1L))
  def distinctSmall(): DistinctSketch = {
    val s = DistinctSketch.create(distinctSmallSpec, 0.5, 0.1, 7L)
    distinctSmallRows.foreach(r => s.add(r.key.asInstanceOf[String], r.ts))
    s
  }

  /** Distinct-count sketch, time window 1000, epsilon 0.99 (capacity 37), delta 0.3 (3 instances),
    * seed 11: bigint values 0..59 at ts = value, then values 0..9 again at ts 60..69. Level 0 is
    * full, so the cell also lists every instance's older items (pins the level hash too).
    */
  val distinctFullSpec = WindowSpec(countWindow = false, tsMicros = false, window = 1000)
  val distinctFullRows: Seq[Row] = (0L until 60L).map(v => Row(v, v, 1L)) ++ (0L until 10L).map(v => Row(v, 60 + v, 1L))
  def distinctFull(): DistinctSketch = {
    val s = DistinctSketch.create(distinctFullSpec, 0.99, 0.3, 11L)
    distinctFullRows.foreach(r => s.add(r.key.asInstanceOf[Long], r.ts))
    s
  }

  // ------------------------------------------------------------------ ECM-sketches

  /** ECM-sketch with EH cells, time window 100, epsilon 0.5, delta 0.5, seed 3: a@1, b@2, a@2, c@7. */
  val ecmSpec = WindowSpec(countWindow = false, tsMicros = false, window = 100)
  val ecmRows: Seq[Row] = Seq(Row("a", 1, 1), Row("b", 2, 1), Row("a", 2, 1), Row("c", 7, 1))
  def ecm(): EcmSketch = ecmFeed(EcmSketch.create(ecmSpec, 0.5, 0.5, QueryKind.Point, 0, 3L), ecmRows)

  /** ECM-sketch with EH cells and TIMESTAMP (microsecond) ticks, window one hour, epsilon 0.5,
    * delta 0.5, seed 3: bigint keys 1 + i % 3 at 1.7e15 + i * 250 s for i in 0..19, weight 1 + i % 2.
    */
  val ecmMicrosSpec = WindowSpec(countWindow = false, tsMicros = true, window = 3600L * 1000000L)
  val ecmMicrosRows: Seq[Row] = (0 until 20).map(i => Row(1L + i % 3, 1700000000000000L + i * 250000000L, 1L + i % 2))
  def ecmMicros(): EcmSketch = ecmFeed(EcmSketch.create(ecmMicrosSpec, 0.5, 0.5, QueryKind.Point, 0, 3L), ecmMicrosRows)

  /** Two ECM-sketches with EH cells (time window 100, epsilon 0.5 after 1 merge level, delta 0.5,
    * seed 3) merged once: site A x/y at ts 1..10, site B y/z at ts 3..12.
    */
  val ecmMergedA: Seq[Row] = (1L to 10L).map(t => Row(if (t % 3 == 0) "y" else "x", t, 1L))
  val ecmMergedB: Seq[Row] = (3L to 12L).map(t => Row(if (t % 2 == 0) "y" else "z", t, 1L + t % 2))
  def ecmMergedSite(rows: Seq[Row]): EcmSketch = ecmFeed(EcmSketch.create(ecmSpec, 0.5, 0.5, QueryKind.Point, 1, 3L), rows)
  def ecmMerged(): EcmSketch = EcmSketch.merge(Seq(ecmMergedSite(ecmMergedA), ecmMergedSite(ecmMergedB)))

  /** ECM-sketches with deterministic-wave cells, time window 10, epsilon 0.5, delta 0.5, seed 3:
    * bigint keys 1 + t % 3 at ts 1..15, weight 1 + t % 3; max_arrivals unbounded or 30.
    */
  val ecmWaveSpec = WindowSpec(countWindow = false, tsMicros = false, window = 10)
  val ecmDwRows: Seq[Row] = (1L to 15L).map(t => Row(1L + t % 3, t, 1L + t % 3))
  def ecmDw(maxArrivals: Long): EcmSketch =
    ecmFeed(EcmSketch.create(ecmWaveSpec, Planner.plan(0.5, 0.5, QueryKind.Point, 0, DwCellKind.id), 3L, maxArrivals), ecmDwRows)

  /** ECM-sketch with randomized-wave cells (time window 10, epsilon 0.5, delta 0.5: 9 x 2 cells,
    * cell delta 0.125), seed 3: bigint keys 1 + t % 3 at ts 1..12, weight 1 + t % 2. The event ids
    * of randomized cells come from a random per-cell salt; here every cell's salt is fixed to its
    * index, so ids are mix64(index + counter) and the bytes are reproducible.
    */
  val ecmRwRows: Seq[Row] = (1L to 12L).map(t => Row(1L + t % 3, t, 1L + t % 2))
  def ecmRw(): EcmSketch = {
    val s = EcmSketch.create(ecmWaveSpec, Planner.plan(0.5, 0.5, QueryKind.Point, 0, RwCellKind.id), 3L)
    val salt = try { val f = classOf[RandWave].getDeclaredField("salt"); f.setAccessible(true); f }
    catch { case e: NoSuchFieldException => throw new AssertionError("RandWave has no 'salt' field: update GoldenInputs.ecmRw", e) }
    var i = 0
    while (i < s.cells.length) { val w = s.cellOps.create(); salt.setLong(w, i.toLong); s.cells(i) = w; i += 1 }
    ecmFeed(s, ecmRwRows)
  }

  // ------------------------------------------------------------------ bundles

  /** Partial-aggregate bundle (ECMB) of eh_agg (time window 100, epsilon 0.25 after 1 merge level),
    * as Spark's partial merge writes it: ingest A (ts 10..29 and 140..142, weight 1) absorbs ingest B
    * (ts 12, 15, 18 with weight 2, ts 150 with weight 1, then ts 5 with weight 5, which lies a whole
    * window behind ts 150 and is dropped). The bundle holds A's run and B's run.
    */
  val bundleSpec = WindowSpec(countWindow = false, tsMicros = false, window = 100)
  val bundleRowsA: Seq[(Long, Long)] = (10L to 29L).map(t => (t, 1L)) ++ (140L to 142L).map(t => (t, 1L))
  val bundleRowsB: Seq[(Long, Long)] = Seq((12L, 2L), (15L, 2L), (18L, 2L), (150L, 1L), (5L, 5L))
  def bundleOps: SketchOps[EhSketch] = SketchOps.eh(() => EhSketch.create(bundleSpec, 0.25, 1))
  def bundleIngest(rows: Seq[(Long, Long)]): Ingest[EhSketch] = {
    val ing = new Ingest(bundleOps, bundleSpec.window)
    rows.foreach { case (t, v) => ing.add(0L, t, v) }
    ing
  }
  def bundle(): Array[Byte] = { val a = bundleIngest(bundleRowsA); a.absorb(bundleIngest(bundleRowsB)); a.serialize() }
  def bundleEmpty(): Array[Byte] = bundleIngest(Nil).serialize()

  /** Merge-aggregate buffer (ECMM) of eh_merge holding two EH sketches (the eh-merged sites). */
  def mergeBuffer(): Array[Byte] = {
    val b = new MergeBuffer()
    b.parts += SketchCodec.encode(ehMergedSite(ehMergedA))
    b.parts += SketchCodec.encode(ehMergedSite(ehMergedB))
    MergeBuffer.serialize(b)
  }

  // ------------------------------------------------------------------ helpers

  private def counter[S <: CounterSketch](s: S, rows: Seq[(Long, Long)]): S = { rows.foreach { case (t, v) => s.add(t, v) }; s }

  private def ecmFeed(s: EcmSketch, rows: Seq[Row]): EcmSketch = {
    rows.foreach {
      case Row(k: String, t, w) => s.add(k, t, w)
      case Row(k: Long, t, w) => s.add(k, t, w)
      case other => throw new IllegalArgumentException(s"unexpected row $other")
    }
    s
  }

  // ------------------------------------------------------------------ dyadic, async and decayed sketches

  /** Dyadic ECM-sketch, time window 100, epsilon 0.5, delta 0.5, no merge levels, 4-bit universe:
    * keys t % 7 at ts 1..30, weight 1 + t % 3.
    */
  val dyadicSpec = WindowSpec(countWindow = false, tsMicros = false, window = 100)
  val dyadicRows: Seq[Row] = (1L to 30L).map(t => Row(t % 7, t, 1 + t % 3))
  def dyadic(): DyadicSketch = {
    val s = DyadicSketch.create(dyadicSpec, 0.5, 0.5, mergeLevels = 0, universeBits = 4)
    dyadicRows.foreach(r => s.add(r.key.asInstanceOf[Long], r.ts, r.w))
    s
  }

  /** The same with string keys "k0".."k4" (t % 5) and 4 candidate keys. */
  val dyadicStringRows: Seq[Row] = (1L to 30L).map(t => Row(s"k${t % 5}", t, 1L))
  def dyadicString(): DyadicSketch = {
    val s = DyadicSketch.create(dyadicSpec, 0.5, 0.5, mergeLevels = 0, universeBits = 4, candidates = 4)
    dyadicStringRows.foreach(r => s.add(r.key.asInstanceOf[String].getBytes("UTF-8"), KeyType.String, r.ts, r.w))
    s
  }

  /** Async sum, time window 100, epsilon 0.5, delta 0.5, seed 7: ts 40 down to 1, weight 1 + t % 4. */
  val asyncRows: Seq[(Long, Long)] = (40L to 1L by -1).map(t => (t, 1 + t % 4))
  def asyncSum(): AsyncSketch = {
    val s = AsyncSketch.create(AsyncSketch.Sum, 100L, 0.5, 0.5, 7L)
    asyncRows.foreach { case (t, w) => s.addWeight(w, t) }
    s
  }

  /** Async quantiles, the same window and parameters: value 1.5 t at ts 40 down to 1. */
  def asyncQuantile(): AsyncSketch = {
    val s = AsyncSketch.create(AsyncSketch.Quantile, 100L, 0.4, 0.5, 7L)
    asyncRows.foreach { case (t, _) => s.addValue(1.5 * t, t) }
    s
  }

  /** Decayed sketch, exponential decay 0.1, epsilon 0.5, delta 0.3, constant 1, max_weight 4, seed 7:
    * ids t % 9 (duplicates) with weight 1 + t % 4 and value t at ts 1..30.
    */
  def decayed(): DecayedSketch = {
    val s = DecayedSketch.create(Some(Decay.Exp(0.1)), 0.5, 0.3, constant = 1.0, maxWeight = 4, seed = 7L)
    (1L to 30L).foreach(t => s.add(DecayedSketch.idOfLong(t % 9), 1 + t % 4, t.toDouble, t))
    s
  }

  /** The general decayed sketch (decay chosen at query time), the same rows. */
  def decayedGeneral(): DecayedSketch = {
    val s = DecayedSketch.create(None, 0.5, 0.3, constant = 1.0, maxWeight = 4, seed = 7L)
    (1L to 30L).foreach(t => s.add(DecayedSketch.idOfLong(t % 9), 1 + t % 4, t.toDouble, t))
    s
  }

  /** The key type a sketch records for keys like `key`. */
  val keyTypeOf: Any => Int = {
    case _: String => KeyType.String
    case _: Long => KeyType.Long
    case _ => KeyType.Unset
  }

  /** Every golden sketch or bundle by file name. */
  lazy val all: Seq[(String, () => Array[Byte])] = Seq(
    "eh" -> (() => SketchCodec.encode(eh())),
    "eh-count" -> (() => SketchCodec.encode(ehCount())),
    "eh-merged" -> (() => SketchCodec.encode(ehMerged())),
    "dwave" -> (() => SketchCodec.encode(dw())),
    "dwave-overflow" -> (() => SketchCodec.encode(dwOverflow())),
    "distinct-small" -> (() => SketchCodec.encode(distinctSmall())),
    "distinct-full" -> (() => SketchCodec.encode(distinctFull())),
    "ecm-eh" -> (() => SketchCodec.encode(ecm())),
    "ecm-eh-micros" -> (() => SketchCodec.encode(ecmMicros())),
    "ecm-eh-merged" -> (() => SketchCodec.encode(ecmMerged())),
    "ecm-dwave" -> (() => SketchCodec.encode(ecmDw(Long.MaxValue))),
    "ecm-dwave-u30" -> (() => SketchCodec.encode(ecmDw(30L))),
    "ecm-rwave" -> (() => SketchCodec.encode(ecmRw())),
    "bundle-ecmb" -> (() => bundle()),
    "bundle-ecmb-empty" -> (() => bundleEmpty()),
    "bundle-ecmm" -> (() => mergeBuffer()))

  /** Kinds whose golden bytes were first recorded with format version 4 (golden/v4/), beside the bytes
    * release 0.2.0 writes for the same inputs (format version 1, golden/<name>.hex).
    */
  /** Windowed quantiles: 400 rows at ts 1..400 (window 300), values 1.5 (i * 37 mod 101), weight 1 + i mod 3. */
  def quantile(): QuantileSketch = {
    val s = QuantileSketch.create(WindowSpec(countWindow = false, tsMicros = false, window = 300L), 0.2, 0.1, seed = 7L)
    (1 to 400).foreach(i => s.add(i.toLong, 1.5 * ((i * 37) % 101), 1L + i % 3))
    s
  }

  /** Three sites of windowed quantiles over ts 1..400 (window 300, one merge level), their values
    * shifted by site, merged: the merge folds the three runs into one of generation 1.
    */
  def quantileFolded(): QuantileSketch = {
    val sites = (0 until 3).map { k =>
      val s = QuantileSketch.create(WindowSpec(countWindow = false, tsMicros = false, window = 300L), 0.2, 0.1, seed = 7L, levels = 1)
      (1 to 400).foreach(i => s.add(i.toLong, 10.0 * k + ((i * 37 + k) % 101), 1L + (i + k) % 3))
      s
    }
    QuantileSketch.merge(sites)
  }

  /** Windowed frequent items: 300 rows at ts 1..300 (window 200), string keys k(i*i mod 17). */
  def frequent(): FrequentSketch = {
    val s = FrequentSketch.create(WindowSpec(countWindow = false, tsMicros = false, window = 200L), 0.1)
    (1 to 300).foreach(i => s.addKey(s"k${(i * i) % 17}", i.toLong, 1L + i % 2))
    s
  }

  /** Windowed frequent items folded: 3 sites over the same 300 timestamps (window 200, merge_levels
    * 1), string keys k(i*i mod 17) beside 60 keys seen once per site.
    */
  def frequentFolded(): FrequentSketch = {
    val sites = (0 until 3).map { k =>
      val s = FrequentSketch.create(WindowSpec(countWindow = false, tsMicros = false, window = 200L), 0.3, 1)
      (1 to 300).foreach { i =>
        s.addKey(s"k${(i * i + k) % 17}", i.toLong, 1L + (i + k) % 2)
        if (i % 5 == k) s.addKey(s"once-$k-$i", i.toLong, 1L)
      }
      s
    }
    FrequentSketch.merge(sites)
  }

  /** Kinds that no release before format version 4 wrote: their v4 bytes alone are pinned. The
    * windowed quantile sketch's first body version (no folds) is pinned in golden/v4/quantile.hex,
    * and its second (f64 values) in quantile-v2 and quantile-folded, read but no longer written; its
    * third in quantile-v3 and quantile-v3-folded. Likewise the frequent-items sketch's first body
    * version in frequent-string.hex; its second in frequent-v2 and frequent-folded; its third in
    * frequent-v3 and frequent-v3-folded.
    */
  lazy val v4New: Seq[(String, () => Array[Byte])] = Seq(
    "quantile-v3" -> (() => Codec.encodeAny(quantile())),
    "quantile-v3-folded" -> (() => Codec.encodeAny(quantileFolded())),
    "frequent-v3" -> (() => Codec.encodeAny(frequent())),
    "frequent-v3-folded" -> (() => Codec.encodeAny(frequentFolded())))

  lazy val v4Only: Seq[(String, () => Array[Byte])] = Seq(
    "dyadic" -> (() => Codec.encodeAny(dyadic())),
    "dyadic-string" -> (() => Codec.encodeAny(dyadicString())),
    "async-sum" -> (() => Codec.encodeAny(asyncSum())),
    "async-quantile" -> (() => Codec.encodeAny(asyncQuantile())),
    "decayed-exp" -> (() => Codec.encodeAny(decayed())),
    "decayed-general" -> (() => Codec.encodeAny(decayedGeneral())))
}
