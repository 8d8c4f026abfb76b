package ecmsketch.core

import org.scalatest.funsuite.AnyFunSuite

/** [[ByteReader.varLongReady]] and [[ByteReader.getReadyVarLong]] against [[ByteReader.getVarLong]]:
  * ready exactly when getVarLong reads without error, and then the same value and position.
  */
class ByteReaderSuite extends AnyFunSuite {
  private def agree(b: Array[Byte], what: String): Unit = {
    val a = new ByteReader(b)
    val ready = a.varLongReady
    val slow = new ByteReader(b)
    val got = try Right(slow.getVarLong("x")) catch { case e: SketchException => Left(e.getMessage) }
    got match {
      case Right(v) =>
        assert(ready, s"$what: getVarLong read $v, but the varint is not ready")
        assert(a.getReadyVarLong() == v && a.position == slow.position, what)
      case Left(m) => assert(!ready, s"$what: ready, but getVarLong fails: $m")
    }
  }

  test("ready exactly for the varints getVarLong reads: every length, overflow, truncation") {
    val values = Seq(0L, 1L, 127L, 128L, 16383L, 16384L, Long.MaxValue, Long.MinValue, -1L, 1L << 62, (1L << 63) + 5)
    values.foreach { v => val o = new ByteWriter(); o.putVarLong(v); val b = o.toByteArray; agree(b, s"value $v"); agree(b.init, s"value $v truncated") }
    // the 10th byte may hold only bit 63; an 11th byte is too long; continuation bits to the end
    for (last <- 0 until 256) {
      agree(Array.fill[Byte](9)(0x80.toByte) :+ last.toByte, s"10th byte $last")
      agree(Array.fill[Byte](9)(0xFF.toByte) :+ last.toByte, s"9 ones then $last")
    }
    agree(Array.fill[Byte](10)(0x80.toByte) :+ 0.toByte, "11 bytes")
    agree(Array.fill[Byte](4)(0x80.toByte), "no last byte")
    agree(Array.empty[Byte], "empty")
    val rnd = new java.util.Random(3)
    (0 until 20000).foreach { i =>
      val b = new Array[Byte](1 + rnd.nextInt(12))
      rnd.nextBytes(b)
      if (i % 2 == 0) (0 until b.length - 1).foreach(j => b(j) = (b(j) | 0x80).toByte) // long varints
      agree(b, s"random $i")
    }
  }
}
