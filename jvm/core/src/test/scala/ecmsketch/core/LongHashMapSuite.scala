package ecmsketch.core

import org.scalatest.funsuite.AnyFunSuite

import scala.collection.mutable

/** [[LongHashMap]] against scala.collection.mutable.HashMap on seeded random operations. */
class LongHashMapSuite extends AnyFunSuite {
  /** Keys from a small range (many hits, deletes of present keys), with 0, negatives and the
    * extremes, or multiples of a power of two (keys that share their low bits).
    */
  private def key(rnd: java.util.SplittableRandom, range: Int, mode: Int): Long = mode match {
    case 0 => rnd.nextInt(range).toLong - range / 2
    case 1 => rnd.nextInt(range).toLong << 32
    case _ => rnd.nextInt(4) match {
      case 0 => 0L
      case 1 => Long.MinValue + rnd.nextInt(range)
      case 2 => Long.MaxValue - rnd.nextInt(range)
      case _ => rnd.nextLong()
    }
  }

  private def check(t: LongHashMap, model: mutable.HashMap[Long, Int], probes: Iterable[Long], values: Boolean): Unit = {
    assert(t.size == model.size)
    assert(t.capacity >= 2 * t.size)
    model.foreach { case (k, v) => assert(t.contains(k), s"lost $k"); if (values) assert(t.get(k, -7) == v) }
    probes.foreach(k => assert(t.contains(k) == model.contains(k), s"key $k"))
  }

  test("random puts, adds, removes, clears and resets agree with mutable.HashMap (maps) and HashSet (sets)") {
    for (seed <- 0 until 80) {
      val rnd = new java.util.SplittableRandom(seed)
      val range = 1 << (3 + seed % 12)
      val mode = seed % 3
      val values = seed % 4 != 3
      val t = new LongHashMap(rnd.nextInt(40), values)
      val model = mutable.HashMap[Long, Int]()
      val probes = mutable.ArrayBuffer[Long]()
      for (step <- 0 until 4000) {
        val k = key(rnd, range, mode)
        probes += k
        (if (values) rnd.nextInt(100) else 55 + rnd.nextInt(45)) match {
          case r if r < 35 =>
            val v = rnd.nextInt()
            t.put(k, v); model(k) = v
          case r if r < 55 =>
            val v = rnd.nextInt(1000)
            val got = t.putIfAbsent(k, v)
            assert(got == model.getOrElse(k, LongHashMap.Missing))
            if (!model.contains(k)) model(k) = v
          case r if r < 70 =>
            assert(t.add(k) == !model.contains(k))
            if (!model.contains(k)) model(k) = 0
          case r if r < 95 =>
            assert(t.remove(k) == model.remove(k).isDefined)
          case 95 | 96 =>
            if (rnd.nextInt(10) == 0) { t.clear(); model.clear() }
          case _ =>
            if (rnd.nextInt(10) == 0) { t.reset(rnd.nextInt(200)); model.clear() }
        }
        if (step % 500 == 0) check(t, model, probes.takeRight(200), values)
      }
      check(t, model, probes, values)
    }
  }

  test("growth from empty keeps every key and value; removing all empties it") {
    val t = new LongHashMap(0, withValues = true)
    val rnd = new java.util.SplittableRandom(11)
    val keys = Array.fill(100000)(rnd.nextLong()).distinct
    keys.indices.foreach(i => assert(t.putIfAbsent(keys(i), i) == LongHashMap.Missing))
    assert(t.size == keys.length && t.capacity >= 2 * keys.length)
    keys.indices.foreach(i => assert(t.get(keys(i), -1) == i))
    keys.foreach(k => assert(t.remove(k)))
    assert(t.isEmpty)
    keys.foreach(k => assert(!t.contains(k)))
  }

  test("sequential keys and long probe runs survive backward-shift removal") {
    val t = new LongHashMap(4, withValues = false)
    val model = mutable.HashSet[Long]()
    (0L until 5000L).foreach { k => t.add(k * 1024); model += k * 1024 }
    (0L until 5000L by 3).foreach { k => assert(t.remove(k * 1024)); model -= k * 1024 }
    (0L until 5000L).foreach(k => assert(t.contains(k * 1024) == model.contains(k * 1024)))
    assert(t.size == model.size)
  }

  test("reset shrinks a table far larger than needed and keeps one that fits") {
    val t = new LongHashMap()
    (0 until 100000).foreach(i => t.add(i.toLong))
    val big = t.capacity
    t.reset(10)
    assert(t.isEmpty && t.capacity < big && t.capacity >= 20)
    (0 until 10).foreach(i => assert(!t.contains(i.toLong)))
    val small = t.capacity
    (0 until 10).foreach(i => t.add(i.toLong))
    t.reset(5)
    assert(t.capacity == small && t.isEmpty && !t.contains(3L))
    t.reset(100)
    assert(t.capacity >= 200)
  }

  test("values survive growth, removes that shift them back, and the key 0; a set refuses values") {
    val t = new LongHashMap(0, withValues = true)
    (0 until 20000).foreach(i => t.put(i.toLong * 7919, i))
    (0 until 20000 by 2).foreach(i => assert(t.remove(i.toLong * 7919)))
    (0 until 20000).foreach(i => assert(t.get(i.toLong * 7919, -1) == (if (i % 2 == 0) -1 else i)))
    assert(t.putIfAbsent(0L, 5) == LongHashMap.Missing && t.get(0L, -1) == 5 && t.putIfAbsent(0L, 6) == 5)
    t.put(0L, 9); assert(t.get(0L, -1) == 9 && t.size == 10001)
    assert(t.remove(0L) && !t.contains(0L) && !t.remove(0L))
    val set = new LongHashMap()
    assert(set.add(3L) && set.contains(3L))
    intercept[UnsupportedOperationException](set.put(3L, 1))
    intercept[UnsupportedOperationException](set.get(3L, 0))
  }

  test("reset, then adds: add and contains agree with a hash set across resets, growth past the size asked and shrinking") {
    val set = new LongHashMap(32, withValues = false)
    val rnd = new scala.util.Random(3)
    for ((asked, adds) <- Seq((10, 5), (10, 5000), (100000, 300), (4, 70000), (3000, 3000), (1, 1))) {
      set.reset(asked)
      val ref = scala.collection.mutable.HashSet[Long]()
      for (_ <- 0 until adds) {
        // ids from a small range repeat; multiples of 2^40 collide in the low bits
        val id = rnd.nextInt(4) match { case 0 => rnd.nextInt(adds).toLong; case 1 => rnd.nextInt(adds).toLong << 40; case _ => rnd.nextLong() }
        assert(set.add(id) == ref.add(id), s"asked $asked: add($id)")
      }
      ref.foreach(id => assert(set.contains(id)))
      for (_ <- 0 until 1000) { val id = rnd.nextLong(); assert(set.contains(id) == ref.contains(id)) }
    }
  }
}
