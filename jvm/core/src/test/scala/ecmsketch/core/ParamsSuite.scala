package ecmsketch.core

import org.scalatest.funsuite.AnyFunSuite

/** [[Params]]: the one refusal of a merge whose parameters differ. */
class ParamsSuite extends AnyFunSuite {
  test("the message names the kind and every difference, after the context when given") {
    assert(Params.mismatch("ECM-sketches", Seq("epsilon 0.1 vs 0.2", "seed 1 vs 2")) ==
      "cannot merge ECM-sketches with different parameters: epsilon 0.1 vs 0.2, seed 1 vs 2")
    assert(Params.mismatch("ECM-sketches", Seq("window 10 vs 20"), context = "ecm_merge") ==
      "ecm_merge: cannot merge ECM-sketches with different parameters: window 10 vs 20")
  }

  test("requireSame throws a SketchException only for differences") {
    Params.requireSame("things", Nil)
    val e = intercept[SketchException](Params.requireSame("things", Seq("size 1 vs 2"), context = "f"))
    assert(e.getMessage == "f: cannot merge things with different parameters: size 1 vs 2")
  }

  test("requireAllSame compares every input with the first") {
    def diffs(a: Int, b: Int): Seq[String] = if (a == b) Nil else Seq(s"n $a vs $b")
    Params.requireAllSame("ints", Seq(3, 3, 3))(diffs)
    Params.requireAllSame("ints", Seq.empty[Int])(diffs)
    val e = intercept[SketchException](Params.requireAllSame("ints", Seq(3, 3, 4, 5))(diffs))
    assert(e.getMessage == "cannot merge ints with different parameters: n 3 vs 4")
  }
}
