package ecmsketch.frequent

import java.nio.charset.{CodingErrorAction, StandardCharsets}

import ecmsketch.core.InfoField.{int, long, real, text}
import ecmsketch.core.{ByteReader, ByteWriter, CellKind, Codec, FunctionSpec, InfoField, SketchException, SketchHeader, SketchKind, Windows}

/** The frequent-items sketch (sketch kind 9, docs/design/windowed-top-k.md "Encoding"): cell kind 0,
  * then body version, key type, the plan (q, k), the keys (body version 3: most referenced first;
  * 1 and 2: ascending), and per scale its drop mark, total residual, pending decrement, partial
  * counts, flags (body version 3: implicit totals and the default weight; 2: the totals flag) and
  * entries. Timestamps are varint offsets (entries from the previous entry, the first from the
  * first timestamp; spans and partial counts back from their entry or the last timestamp). Body
  * version 3 writes an entry's key index and two flags as one varint, and leaves out a weight
  * equal to the scale's default, a key entry's span when it is its own timestamp, and a total's
  * decrement of 0. Entries of one timestamp are in canonical order (totals first, then by key,
  * span, weight, decrement), so a sketch has one encoding. Every field is validated on decode.
  */
object FrequentKind extends SketchKind[FrequentSketch](9, "frequent") {
  final val BodyVersion = 3
  /** Scale flags (body version 3): the total entries are implicit (one per key entry). */
  private final val ImplicitTotals = 1
  /** Scale flags (body version 3): the default weight is 2 lambda (else lambda). */
  private final val DoubleDefault = 2

  def describe: String = "a frequent-items sketch (from top_k_agg or top_k_merge)"
  def expected: String = "a frequent-items sketch (from top_k_agg)"
  def plural: String = "frequent-items sketches"
  def cellKinds: Seq[CellKind] = Nil
  override def functions: Seq[FunctionSpec] = FrequentFunctions.all
  def cellKindOf(s: FrequentSketch): Int = Codec.NoCells
  def sizeHint(s: FrequentSketch): Int = (Codec.HeaderSize + 64 + 8 * s.storedEntries + 12L * s.keysHeld).min(Int.MaxValue - 64).toInt

  private def corrupt(msg: String): Nothing = throw new SketchException(s"corrupt sketch: $msg")

  /** Ids referenced by the sketch in ascending key order, and id -> index (-1: not referenced). */
  private def keyIndex(s: FrequentSketch): (Array[Int], Array[Int]) = {
    if (s.dict == null) return (Array.empty, Array.empty)
    val m = s.referencedKeys()
    var n = 0
    var i0 = 0
    while (i0 < m.length) { if (m(i0)) n += 1; i0 += 1 }
    val sorted = new Array[Int](n)
    n = 0; i0 = 0
    while (i0 < m.length) { if (m(i0)) { sorted(n) = i0; n += 1 }; i0 += 1 }
    sortIds(sorted, new Array[Int](sorted.length), 0, sorted.length, s.dict)
    (sorted, indexOf(sorted, m.length))
  }

  /** id -> its position in `ids` (-1 for ids not listed), over ids below `capacity`. */
  private def indexOf(ids: Array[Int], capacity: Int): Array[Int] = {
    val index = Array.fill(capacity)(-1)
    var i = 0
    while (i < ids.length) { index(ids(i)) = i; i += 1 }
    index
  }

  /** References of each key id: its key entries and partial counts over every scale (body version
    * 3 orders the keys by them).
    */
  private def references(s: FrequentSketch, capacity: Int): Array[Int] = {
    val c = new Array[Int](capacity)
    s.scales.foreach { sc =>
      var i = sc.start
      while (i < sc.end) { if (sc.ekey(i) != Scale.Total) c(sc.ekey(i)) += 1; i += 1 }
      var j = 0
      while (j < sc.rn) { if (sc.rW(j) > 0) c(sc.rKey(j)) += 1; j += 1 }
    }
    c
  }

  /** Body version 3's key order: the ids referenced, most references first, ties in ascending key
    * order (so the keys that most entries name take the shortest tags); and id -> index.
    */
  private def keyIndexByUse(s: FrequentSketch): (Array[Int], Array[Int]) = {
    val (asc, _) = keyIndex(s)
    if (asc.isEmpty) return (asc, Array.empty)
    val refs = references(s, s.dict.capacity)
    val packed = new Array[Long](asc.length)
    var i = 0
    while (i < asc.length) { packed(i) = ((Int.MaxValue - refs(asc(i))).toLong << 32) | i; i += 1 }
    java.util.Arrays.sort(packed)
    val ids = new Array[Int](asc.length)
    i = 0
    while (i < asc.length) { ids(i) = asc((packed(i) & 0xFFFFFFFFL).toInt); i += 1 }
    (ids, indexOf(ids, s.dict.capacity))
  }

  /** Sorts ids [from, until) by key (a merge sort through `tmp`: no boxing, no comparator object). */
  private def sortIds(a: Array[Int], tmp: Array[Int], from: Int, until: Int, d: KeyDict): Unit =
    if (until - from <= 16) {
      var i = from + 1
      while (i < until) {
        val x = a(i); var j = i
        while (j > from && d.compareKeys(a(j - 1), x) > 0) { a(j) = a(j - 1); j -= 1 }
        a(j) = x
        i += 1
      }
    } else {
      val mid = (from + until) >>> 1
      sortIds(a, tmp, from, mid, d); sortIds(a, tmp, mid, until, d)
      if (d.compareKeys(a(mid - 1), a(mid)) > 0) {
        System.arraycopy(a, from, tmp, from, mid - from)
        var i = from; var j = mid; var o = from
        while (i < mid && j < until) { if (d.compareKeys(a(j), tmp(i)) < 0) { a(o) = a(j); j += 1 } else { a(o) = tmp(i); i += 1 }; o += 1 }
        while (i < mid) { a(o) = tmp(i); i += 1; o += 1 }
      }
    }

  def encodeBody(s: FrequentSketch, out: ByteWriter): Unit = {
    s.flush()
    val v3 = s.plan.folds // a sketch read from body version 1 keeps its plan, and is written as version 1
    out.putByte(if (v3) BodyVersion else 1)
    out.putByte(s.keyType)
    out.putVarLong(s.plan.q)
    out.putVarLong(s.plan.k.toLong)
    val (ids, index) = if (v3) keyIndexByUse(s) else keyIndex(s)
    out.putVarLong(ids.length.toLong)
    ids.foreach { id =>
      if (s.dict.bytesKeys) { val b = s.dict.bytesKey(id); out.putVarLong(b.length.toLong); out.putBytes(b) }
      else out.putLong(s.dict.longKey(id))
    }
    out.putByte(s.scales.size)
    val first = s.firstTs; val last = s.lastTs
    s.scales.foreach { sc =>
      out.putVarLong(if (sc.dropped == Long.MinValue) 0L else sc.dropped - first + 1)
      out.putVarLong(sc.totR)
      if (sc.totR > 0) out.putVarLong(last - sc.totSpan)
      out.putVarLong(sc.pendDec)
      val live = (0 until sc.rn).filter(j => sc.rW(j) > 0).sortBy(j => index(sc.rKey(j)))
      out.putVarLong(live.size.toLong)
      live.foreach { j => out.putVarLong(index(sc.rKey(j)).toLong); out.putVarLong(sc.rW(j)); out.putVarLong(last - sc.rSpan(j)) }
      val order = canonicalOrder(sc, index)
      val implicitTotals = v3 && totalsImplicit(sc) // true for a scale without entries
      val written = if (implicitTotals) order.filter(i => sc.ekey(i) != Scale.Total) else order
      var prev = first
      if (!v3) {
        out.putVarLong(written.length.toLong)
        written.foreach { i =>
          out.putVarLong(sc.ets(i) - prev); prev = sc.ets(i)
          out.putVarLong(sc.ets(i) - sc.espan(i))
          val key = sc.ekey(i)
          out.putVarLong(if (key == Scale.Total) 0L else index(key) + 1L)
          out.putVarLong(sc.ew(i))
          if (key == Scale.Total) out.putVarLong(sc.edec(i))
        }
      } else {
        val dflt = defaultWeight(sc, written)
        out.putByte((if (implicitTotals) ImplicitTotals else 0) | (if (dflt != sc.lambda) DoubleDefault else 0))
        out.putVarLong(written.length.toLong)
        var e = 0
        while (e < written.length) {
          val i = written(e)
          val ts = sc.ets(i); val back = ts - sc.espan(i); val w = sc.ew(i); val key = sc.ekey(i)
          out.putVarLong(ts - prev); prev = ts
          if (key == Scale.Total) {
            val dec = sc.edec(i)
            out.putVarLong((if (w != dflt) 2L else 0L) | (if (dec != 0L) 1L else 0L))
            out.putVarLong(back)
            if (w != dflt) out.putVarLong(w)
            if (dec != 0L) out.putVarLong(dec)
          } else {
            out.putVarLong(((index(key) + 1L) << 2) | (if (w != dflt) 2L else 0L) | (if (back != 0L) 1L else 0L))
            if (back != 0L) out.putVarLong(back)
            if (w != dflt) out.putVarLong(w)
          }
          e += 1
        }
      }
    }
  }

  /** Positions of the entries of `sc` in canonical order: timestamp order (as held), and within a
    * timestamp totals first, then by key index, span, weight and decrement.
    */
  private def canonicalOrder(sc: Scale, index: Array[Int]): Array[Int] = {
    val order = new Array[Int](sc.end - sc.start)
    var o = 0
    while (o < order.length) { order(o) = sc.start + o; o += 1 }
    var from = 0
    while (from < order.length) {
      var to = from + 1
      while (to < order.length && sc.ets(order(to)) == sc.ets(order(from))) to += 1
      if (to - from > 16) {
        val run = order.slice(from, to).sortWith((a, b) => compareEntry(sc, index, a, b) < 0)
        System.arraycopy(run, 0, order, from, to - from)
      } else { // an insertion sort: runs of one timestamp are short (a row's key and total entries)
        var i = from + 1
        while (i < to) {
          val x = order(i); var j = i
          while (j > from && compareEntry(sc, index, order(j - 1), x) > 0) { order(j) = order(j - 1); j -= 1 }
          order(j) = x
          i += 1
        }
      }
      from = to
    }
    order
  }

  /** Body version 3's default weight of a scale, left out of the entries that weigh it: 2 lambda
    * (the blocks of a fold) when more of the written entries weigh that than lambda (the blocks of
    * one stream), else lambda.
    */
  private def defaultWeight(sc: Scale, written: Array[Int]): Long = {
    val double = doubleLambda(sc.lambda)
    var one = 0; var two = 0
    var e = 0
    while (e < written.length) { val w = sc.ew(written(e)); if (w == sc.lambda) one += 1 else if (w == double) two += 1; e += 1 }
    if (two > one) double else sc.lambda
  }

  /** 2 lambda, or -1 where it would pass 2^63 - 1 (scale 62: no weight is twice its lambda). */
  private def doubleLambda(lambda: Long): Long = if (lambda > Long.MaxValue / 2) -1L else 2 * lambda

  /** Whether the total entries of `sc` are exactly one (ts, span ts, w, decrement 0) per key entry
    * (ts, w), as on an exact scale: body versions 2 and 3 then leave them out and the reader rebuilds them.
    */
  private[frequent] def totalsImplicit(sc: Scale): Boolean = {
    var keys = new Array[Long](8); var tots = new Array[Long](8)
    var i = sc.start
    while (i < sc.end) {
      val t = sc.ets(i)
      var nk = 0; var nt = 0
      var j = i
      while (j < sc.end && sc.ets(j) == t) {
        if (sc.ekey(j) == Scale.Total) {
          if (sc.espan(j) != t || sc.edec(j) != 0L || sc.ew(j) == 0L) return false
          if (nt == tots.length) tots = java.util.Arrays.copyOf(tots, nt * 2)
          tots(nt) = sc.ew(j); nt += 1
        } else {
          if (nk == keys.length) keys = java.util.Arrays.copyOf(keys, nk * 2)
          keys(nk) = sc.ew(j); nk += 1
        }
        j += 1
      }
      if (nk != nt) return false
      if (nk == 1) { if (keys(0) != tots(0)) return false }
      else if (nk > 1) {
        java.util.Arrays.sort(keys, 0, nk); java.util.Arrays.sort(tots, 0, nt)
        var x = 0
        while (x < nk) { if (keys(x) != tots(x)) return false; x += 1 }
      }
      i = j
    }
    true
  }

  private def compareEntry(sc: Scale, index: Array[Int], a: Int, b: Int): Int = {
    def k(i: Int): Int = if (sc.ekey(i) == Scale.Total) -1 else index(sc.ekey(i))
    val c1 = Integer.compare(k(a), k(b))
    if (c1 != 0) c1
    else if (sc.espan(a) != sc.espan(b)) java.lang.Long.compare(sc.espan(a), sc.espan(b))
    else if (sc.ew(a) != sc.ew(b)) java.lang.Long.compare(sc.ew(a), sc.ew(b))
    else java.lang.Long.compare(sc.edec(a), sc.edec(b))
  }

  def decodeBody(in: ByteReader, h: SketchHeader): FrequentSketch = {
    val version = in.getByte("frequent-items body version")
    if (version < 1 || version > BodyVersion) corrupt(s"frequent-items body version $version (this library reads 1 to $BodyVersion)")
    val kt = in.getByte("key type")
    if (kt > FreqKeys.MaxType) corrupt(s"key type $kt is not 0 (none), 1 (bigint), 2 (string), 3 (binary), 4 (int) or 5 (double)")
    val plan = try { if (version == 1) FreqPlan.legacy(h.epsilon, h.levels) else FreqPlan.of(h.epsilon, h.levels) }
      catch { case e: SketchException => corrupt(e.getMessage) }
    val q = vl(in, "horizon ratio")
    val k = vl(in, "table size")
    if (q != plan.q || k != plan.k) corrupt(s"plan (q $q, k $k) is not (q ${plan.q}, k ${plan.k}), the one epsilon ${h.epsilon} and merge_levels ${h.levels} give")
    if (h.depth > 65535) corrupt(s"merge depth ${h.depth} exceeds 65535")
    val s = new FrequentSketch(h.spec, h.epsilon, h.levels, plan)
    val nKeys = vin(in, "key count", 0, in.remaining.toLong).toInt
    if (nKeys > 0 && kt == FreqKeys.Unset) corrupt("keys in a sketch without a key type")
    if (kt != FreqKeys.Unset) s.setKeyType(kt)
    val ids = new Array[Int](nKeys)
    val seenIds = new java.util.BitSet()
    var i = 0
    while (i < nKeys) {
      val id =
        if (FreqKeys.isBytes(kt)) {
          val len = vin(in, s"length of key $i", 0, FreqKeys.MaxKeyBytes.toLong).toInt
          val b = in.getBytes(len, s"key $i")
          if (kt == FreqKeys.Str) checkUtf8(b, i)
          s.dict.idOfBytes(b)
        } else {
          val v = in.getLong(s"key $i")
          if (kt == FreqKeys.Int && v != v.toInt.toLong) corrupt(s"int key $i is $v, outside the int range")
          if (kt == FreqKeys.Double && v != FreqKeys.doubleBits(java.lang.Double.longBitsToDouble(v)))
            corrupt(s"double key $i has non-canonical bits (negative zero or a NaN payload)")
          s.dict.idOfLong(v)
        }
      if (version < 3 && i > 0 && s.dict.compareKeys(ids(i - 1), id) >= 0) corrupt(s"keys are not in strictly ascending order at key $i")
      if (version >= 3) { if (seenIds.get(id)) corrupt(s"key $i repeats an earlier key"); seenIds.set(id) }
      ids(i) = id
      i += 1
    }
    val nScales = in.getByte("scale count")
    if (nScales > FrequentSketch.MaxScales) corrupt(s"$nScales scales, more than ${FrequentSketch.MaxScales}")
    if (!h.hasRows && nScales > 0) corrupt("scales in an empty sketch")
    val first = h.firstTs; val last = h.lastTs
    val span = last - first // unsigned
    def offsetBack(what: => String): Long = { // a timestamp given as last - x, inside [first, last]
      val x = vl(in, what)
      if (java.lang.Long.compareUnsigned(x, span) > 0) corrupt(s"$what lies before the first timestamp")
      last - x
    }
    val windowLo = if (h.spec.unbounded || !h.hasRows) Long.MinValue else Windows.lowerBound(last, h.spec.window)
    val used = new Array[Int](nKeys)
    var l = 0
    while (l < nScales) {
      val sc = new Scale(1L << l, plan.k)
      val d = vl(in, s"drop mark of scale $l")
      if (d != 0L) {
        if (java.lang.Long.compareUnsigned(d - 1, span) > 0) corrupt(s"scale $l's drop mark lies after the last timestamp")
        sc.dropped = first + (d - 1)
      }
      sc.totR = vin(in, s"total residual of scale $l", 0, h.count)
      if (sc.totR > 0) sc.totSpan = offsetBack(s"total residual span of scale $l")
      sc.pendDec = vin(in, s"pending decrement of scale $l", 0, h.count)
      val rn = vin(in, s"partial count total of scale $l", 0, plan.k.toLong).toInt
      val rk = new Array[Int](math.max(rn, 1)); val rw = new Array[Long](math.max(rn, 1)); val rs = new Array[Long](math.max(rn, 1))
      var weight = sc.totR
      var j = 0
      var pidx = -1
      while (j < rn) {
        val idx = vin(in, s"key of partial count $j of scale $l", 0, nKeys - 1L).toInt
        if (idx <= pidx) corrupt(s"partial counts of scale $l are not in ascending key order at $j")
        pidx = idx
        rk(j) = ids(idx); used(idx) += 1
        rw(j) = vin(in, s"partial count $j of scale $l", 1, h.count)
        rs(j) = offsetBack(s"span of partial count $j of scale $l")
        j += 1
      }
      sc.setResiduals(rk, rw, rs, rn)
      val flags = if (version == 2) in.getByte(s"totals flag of scale $l") match {
          case f @ (0 | 1) => f
          case f => corrupt(s"totals flag of scale $l is $f, not 0 (written) or 1 (one per key entry)")
        }
        else if (version >= 3) {
          val f = in.getByte(s"flags of scale $l")
          if ((f & ~(ImplicitTotals | DoubleDefault)) != 0) corrupt(s"flags of scale $l are $f: only bits 0 (implicit totals) and 1 (default weight 2 lambda) exist")
          f
        } else 0
      val implicitTotals = (flags & ImplicitTotals) != 0
      val double = doubleLambda(sc.lambda)
      if ((flags & DoubleDefault) != 0 && double < 0) corrupt(s"scale $l's default weight 2 lambda exceeds 2^63 - 1")
      val dflt = if ((flags & DoubleDefault) != 0) double else sc.lambda
      var nOne = 0; var nTwo = 0
      val n = vin(in, s"entry count of scale $l", 0, in.remaining.toLong / (if (version >= 3) 2 else 4)).toInt // an entry takes 2 bytes or more (4 before body version 3)
      // a hint: n is at most half the bytes left, and the cap bounds what a corrupt count allocates
      sc.reserve(math.min(if (implicitTotals) 2 * n else n, 1 << 20))
      var prev = first; var usedSpan = 0L
      var keyWeight = 0L
      var pk = -2; var pspan = 0L; var pw = 0L; var pdec = 0L
      var e = 0
      while (e < n) {
        val dt = vlEntry(in, FTs, e, l)
        if (java.lang.Long.compareUnsigned(dt, span - usedSpan) > 0) corrupt(s"entry $e of scale $l lies after the last timestamp")
        usedSpan += dt
        val ts = prev + dt
        if (ts <= sc.dropped) corrupt(s"entry $e of scale $l lies at or before the scale's drop mark")
        if (ts < windowLo) corrupt(s"entry $e of scale $l lies before the window (not canonical)")
        var back = 0L; var kv = 0; var w = 0L; var dec = 0L
        // a total entry of weight 0 (body version 2 on) carries a fold's decrement step at its time, or
        // in a roll-up an older sketch's pending decrement at its last timestamp
        val minW = if (version >= 2) 0L else 1L
        if (version < 3) {
          back = vlEntry(in, FSpan, e, l)
          kv = vinEntry(in, FKey, e, l, 0, nKeys.toLong).toInt
          w = vinEntry(in, FWeight, e, l, if (kv == 0) minW else 1L, h.count)
          if (kv == 0) dec = vinEntry(in, FDec, e, l, 0, h.count)
        } else {
          val at = in.position
          val tag = vlEntry(in, FKey, e, l)
          if (java.lang.Long.compareUnsigned(tag >>> 2, nKeys.toLong) > 0) corrupt(s"key of entry $e of scale $l at byte $at is ${tag >>> 2}, beyond the $nKeys keys")
          kv = (tag >>> 2).toInt
          val hasW = (tag & 2L) != 0; val extra = (tag & 1L) != 0
          if (kv == 0 || extra) back = vinEntry(in, FSpan, e, l, if (kv == 0) 0L else 1L, Long.MaxValue)
          if (hasW) {
            w = vinEntry(in, FWeight, e, l, if (kv == 0) minW else 1L, h.count)
            if (w == dflt) corrupt(s"weight of entry $e of scale $l is written but is the scale's default $dflt (not canonical)")
          } else {
            if (dflt > h.count) corrupt(s"weight of entry $e of scale $l = $dflt (the scale's default) exceeds the total weight ${h.count}")
            w = dflt
          }
          if (kv == 0 && extra) dec = vinEntry(in, FDec, e, l, 1L, h.count)
          if (w == sc.lambda) nOne += 1 else if (w == double) nTwo += 1
        }
        // both checks come after the entry's fields are read: bytes with several faults may name
        // another one first, but the same bytes are refused as before body version 3
        if (java.lang.Long.compareUnsigned(back, usedSpan) > 0) corrupt(s"entry $e of scale $l spans back before the first timestamp")
        val sp = ts - back
        if (w == 0L && sp != ts) corrupt(s"entry $e of scale $l has weight 0 and spans back")
        val kc = kv - 1
        if (e > 0 && dt == 0) { // canonical order within a timestamp
          val c = if (kc != pk) Integer.compare(kc, pk) else if (sp != pspan) java.lang.Long.compare(sp, pspan)
            else if (w != pw) java.lang.Long.compare(w, pw) else java.lang.Long.compare(dec, pdec)
          if (c < 0) corrupt(s"entries of scale $l at one timestamp are not in canonical order at entry $e")
        }
        pk = kc; pspan = sp; pw = w; pdec = dec
        if (kv == 0 && implicitTotals) corrupt(s"entry $e of scale $l is a total entry, but the scale's totals are implicit")
        // weight <= count always, so count - weight cannot overflow, and neither can the sums
        if (kv == 0) { if (w > h.count - weight) corrupt(s"scale $l's totals exceed the total weight ${h.count}"); weight += w }
        else {
          if (w > h.count - keyWeight) corrupt(s"scale $l's key entries exceed the total weight ${h.count}")
          keyWeight += w
          used(kc) += 1
          if (implicitTotals) {
            if (w > h.count - weight) corrupt(s"scale $l's totals exceed the total weight ${h.count}")
            weight += w
            sc.appendRaw(ts, ts, Scale.Total, w, 0L)
          }
        }
        sc.appendRaw(ts, sp, if (kv == 0) Scale.Total else ids(kc), w, dec)
        prev = ts
        e += 1
      }
      if (version >= 2 && !implicitTotals && totalsImplicit(sc))
        corrupt(s"scale $l writes out the totals its key entries give (not canonical: they are implicit)")
      if (version >= 3 && (nTwo > nOne) != (dflt != sc.lambda))
        corrupt(s"scale $l's default weight is $dflt, but $nOne entries weigh ${sc.lambda} and $nTwo weigh $double (not canonical)")
      s.scales += sc
      l += 1
    }
    i = 0
    while (i < nKeys) {
      if (used(i) == 0) corrupt(s"key $i is held by no entry or partial count")
      if (version >= 3 && i > 0 && (used(i - 1) < used(i) || (used(i - 1) == used(i) && s.dict.compareKeys(ids(i - 1), ids(i)) >= 0)))
        corrupt(s"key $i is out of order: keys go by the entries and partial counts that name them, most first, then in ascending order")
      i += 1
    }
    if (nScales > 0 && s.scales.last.dropped != Long.MinValue) corrupt("the coarsest scale has a drop mark")
    in.expectEnd()
    s
  }

  /** A varint in its shortest form (one encoding per value: a longer one is refused as corrupt). */
  private def vl(in: ByteReader, what: => String): Long = {
    val at = in.position
    val v = in.getVarLong(what)
    if (in.position - at > 1 && in.bytes(in.position - 1) == 0) corrupt(s"$what at byte $at is not in its shortest varint form")
    v
  }

  // the fields of an entry, named only for an error: reading an entry allocates no name
  private final val FTs = 0
  private final val FSpan = 1
  private final val FKey = 2
  private final val FWeight = 3
  private final val FDec = 4
  private val entryFields = Array("timestamp", "span", "key", "weight", "decrement")
  private def entryField(f: Int, e: Int, l: Int): String = s"${entryFields(f)} of entry $e of scale $l"

  /** [[vl]] of field `f` of entry `e` of scale `l`, with the same errors. */
  private def vlEntry(in: ByteReader, f: Int, e: Int, l: Int): Long =
    if (!in.varLongReady) vl(in, entryField(f, e, l))
    else {
      val at = in.position
      val v = in.getReadyVarLong()
      if (in.position - at > 1 && in.bytes(in.position - 1) == 0) corrupt(s"${entryField(f, e, l)} at byte $at is not in its shortest varint form")
      v
    }

  /** [[vin]] of field `f` of entry `e` of scale `l`, with the same errors. */
  private def vinEntry(in: ByteReader, f: Int, e: Int, l: Int, lo: Long, hi: Long): Long = {
    val at = in.position
    val v = vlEntry(in, f, e, l)
    if (v < lo || v > hi) corrupt(s"${entryField(f, e, l)} = $v at byte $at is outside [$lo, $hi]")
    v
  }

  private def vin(in: ByteReader, what: => String, lo: Long, hi: Long): Long = {
    val at = in.position
    val v = vl(in, what)
    if (v < lo || v > hi) corrupt(s"$what = $v at byte $at is outside [$lo, $hi]")
    v
  }

  private def checkUtf8(b: Array[Byte], i: Int): Unit = {
    val dec = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)
    try dec.decode(java.nio.ByteBuffer.wrap(b))
    catch { case _: java.nio.charset.CharacterCodingException => corrupt(s"string key $i is not valid UTF-8") }
  }

  def merge(xs: Seq[FrequentSketch]): FrequentSketch = FrequentSketch.merge(xs)
  def mergeSameStream(xs: Seq[FrequentSketch]): FrequentSketch = FrequentSketch.mergeSameStream(xs)
  def mergeDiffs(a: FrequentSketch, b: FrequentSketch): Seq[String] = a.diffs(b)

  /** The family's `sketch_info` fields: the key type, the certified error, the keys and entries held,
    * and the plan (scales, the horizon ratio q and the table size k of docs/design/windowed-top-k.md).
    */
  def infoFields: Seq[InfoField] = Seq(text("key_type"), real("heavy_hitter_error_bound"), int("candidates"),
    int("stored_entries"), int("scales"), long("horizon_ratio"), int("table_size"))

  def info(s: FrequentSketch): Map[String, Any] =
    Map("key_type" -> s.keyTypeName, "heavy_hitter_error_bound" -> s.errorBound,
      "candidates" -> s.keysHeld, "stored_entries" -> s.storedEntries.toInt, "scales" -> s.scaleCount,
      "horizon_ratio" -> s.plan.q, "table_size" -> s.plan.k)

  def errorBound(s: FrequentSketch): Double = s.errorBound
}
