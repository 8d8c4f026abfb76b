package ecmsketch.frequent

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

/** [[KeySlots]] against a model: equal keys share a slot while any row holds it, every take returns the
  * key put, and a slot is emptied with its last hold (through growth, rehashing and deletions).
  */
class KeySlotsSuite extends AnyFunSuite {
  test("random puts and takes agree with a model of held keys") {
    val r = new Random(71L)
    val slots = new KeySlots
    val held = scala.collection.mutable.ArrayBuffer[(Long, String)]() // one entry per hold
    val slotOf = scala.collection.mutable.HashMap[String, Long]()
    val holds = scala.collection.mutable.HashMap[String, Int]().withDefaultValue(0)
    (0 until 200000).foreach { step =>
      // phases that grow and shrink the set of distinct keys, so deletions meet long probe runs
      val growing = (step / 20000) % 2 == 0
      if (held.isEmpty || r.nextDouble() < (if (growing) 0.7 else 0.3)) {
        val k = "key-" + r.nextInt(if (r.nextBoolean()) 30 else 20000)
        val slot = slots.put(k.getBytes("UTF-8")) // a fresh array: equal content, not the same array
        slotOf.get(k).foreach(s => assert(s == slot, s"$k moved from slot $s to $slot while held"))
        slotOf(k) = slot; holds(k) += 1
        held += slot -> k
      } else {
        val i = r.nextInt(held.size)
        val (slot, k) = held(i)
        held(i) = held.last; held.remove(held.size - 1)
        assert(new String(slots.take(slot), "UTF-8") == k)
        holds(k) -= 1
        if (holds(k) == 0) { holds -= k; slotOf -= k }
      }
      if (step % 997 == 0) assert(slots.size == holds.size)
    }
    held.foreach { case (slot, k) => assert(new String(slots.take(slot), "UTF-8") == k) }
    assert(slots.size == 0)
    assertThrows[IllegalStateException](slots.take(0L))
  }

  test("a key put from a slice of a reused buffer is copied once, and matches the same key put whole") {
    val slots = new KeySlots
    val buf = "xx/p/1yy".getBytes("UTF-8")
    val a = slots.put(buf, 2, 4)
    assert(slots.put("/p/1".getBytes("UTF-8")) == a)
    buf(5) = '9'.toByte // the source is reused: the held key does not change
    val b = slots.put(buf, 2, 4)
    assert(b != a && slots.size == 2)
    assert(new String(slots.take(a), "UTF-8") == "/p/1" && new String(slots.take(b), "UTF-8") == "/p/9")
    assert(slots.hash(a) == ecmsketch.hash.Hashing.fingerprintBytes("/p/1".getBytes("UTF-8")))
    assert(new String(slots.take(a), "UTF-8") == "/p/1" && slots.size == 0)
  }

  test("a slot's hash is the key's fingerprint, and a released slot is reused") {
    val slots = new KeySlots
    val a = slots.put("a".getBytes("UTF-8"))
    assert(slots.hash(a) == ecmsketch.hash.Hashing.fingerprintBytes("a".getBytes("UTF-8")))
    assert(slots.put("a".getBytes("UTF-8")) == a && slots.size == 1)
    slots.release(a); slots.release(a)
    assert(slots.size == 0)
    assert(slots.put("b".getBytes("UTF-8")) == a)
  }
}
