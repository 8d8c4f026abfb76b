package ecmsketch

import org.scalatest.funsuite.AnyFunSuite

import ecmsketch.core.{FunctionSpec, InfoField, SketchDescription, SketchException}
import ecmsketch.ecm.CellKinds
import ecmsketch.format.GoldenInputs

/** The registration list and what is derived from the descriptors: ids, names, the sketch_info schema
  * and the SQL specs.
  */
class FamiliesSuite extends AnyFunSuite {
  test("the registration list: ids are the format's kind bytes 1, 2, ... in order, names unique, lookups by both") {
    assert(Families.all.map(_.id) == (1 to Families.all.size))
    assert(Families.all.map(_.name).distinct.size == Families.all.size)
    Families.all.foreach { k =>
      assert(Families.get(k.id).contains(k) && (Families.named(" " + k.name.toUpperCase + " ") eq k), k.name)
    }
    assert(Families.get(0).isEmpty && Families.get(Families.all.size + 1).isEmpty)
    val e = intercept[SketchException](Families.named("nope")).getMessage
    assert(e.startsWith("kind must be 'eh', 'ecm'") && e.endsWith("got 'nope'"), e)
    assert(intercept[SketchException](CellKinds.named("x")).getMessage == "cell must be 'eh', 'dwave' or 'rwave', got 'x'")
    assert(intercept[SketchException](CellKinds.getOrFail(9)).getMessage == "corrupt sketch: unknown cell kind 9")
  }

  test("a kind table refuses duplicate ids or names") {
    val e = intercept[IllegalArgumentException](new core.KindTable[(Int, String)](Seq(1 -> "a", 1 -> "b"), "thing", "t")(_._1, _._2))
    assert(e.getMessage.contains("duplicate thing ids or names"))
    intercept[IllegalArgumentException](new core.KindTable[(Int, String)](Seq(1 -> "a", 2 -> "a"), "thing", "t")(_._1, _._2))
  }

  test("the sketch_info schema: the shared fields first, then every kind's and cell kind's, each once") {
    val schema = Families.infoSchema
    assert(schema.take(SketchDescription.shared.size) == SketchDescription.shared)
    assert(schema.map(_.name).distinct.size == schema.size)
    val declared = Families.all.flatMap(k => k.infoFields ++ k.cellKinds.flatMap(_.infoFields)).toSet
    assert(declared.subsetOf(schema.toSet) && schema.toSet == (SketchDescription.shared.toSet ++ declared))
    assert(Families.infoFields == schema.map(_.name))
  }

  test("a field declared with two types is refused, naming it and both owners") {
    val e = intercept[IllegalStateException](SketchDescription.union(SketchDescription.shared,
      Seq("a" -> Seq(InfoField.int("x")), "b" -> Seq(InfoField.text("x"))))).getMessage
    assert(e == "sketch_info field 'x' is STRING for b but INT for a", e)
    assert(intercept[IllegalStateException](SketchDescription.union(SketchDescription.shared,
      Seq("a" -> Seq(InfoField.int("kind"))))).getMessage == "sketch_info field 'kind' is INT for a but STRING for every sketch")
  }

  test("every golden sketch describes itself over the whole schema, with its kind's fields only") {
    for ((name, _) <- GoldenInputs.all ++ GoldenInputs.v4Only if !name.startsWith("bundle")) {
      val b = GoldenInputs.loadV4(name)
      val s = Families.decode(b)
      val info = Families.info(s, b)
      assert(info.keySet == Families.infoFields.toSet, name)
      val own = (s.kind.infoFields ++ s.kind.cellKinds.flatMap(_.infoFields)).map(_.name).toSet ++
        SketchDescription.shared.map(_.name)
      val set = info.collect { case (k, v) if v != null => k }.toSet
      assert(set.subsetOf(own), s"$name reports ${set -- own}")
      assert(info("kind") == s.kind.name && info("format_version") == 4 && info("checksum") == true, name)
    }
  }

  test("the SQL specs: names unique, every parameter documented, named parameters in the usage, examples") {
    val specs = Families.all.flatMap(_.functions) ++ SketchDescription.functions
    assert(specs.map(_.name).distinct.size == specs.size)
    for (f <- specs) {
      assert(f.params.forall(_.doc.nonEmpty) && f.examples.nonEmpty && f.usage.startsWith("_FUNC_("), f.name)
      assert(f.params.map(_.name).distinct.size == f.params.size, f.name)
      // required parameters come first
      assert(f.params.dropWhile(_.default.isEmpty).forall(_.default.nonEmpty), f.name)
    }
    assert(intercept[IllegalArgumentException](FunctionSpec.req("no_such_parameter")).getMessage.contains("no_such_parameter"))
  }
}
