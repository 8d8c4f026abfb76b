package ecmsketch.bench.sliding

import org.scalatest.funsuite.AnyFunSuite

/** The HSS-CM benchmark baseline on tiny streams against answers worked out by hand. */
class HalfSlidingCMSuite extends AnyFunSuite {

  test("width 1, depth 4, N = 8, 2 arrays queried: the clock zeroes array s % 4 at t = 2 (s + 1)") {
    // one counter per array, so every key shares it; 4 counters per sweep of 8 time units: the clock
    // zeroes array 0 at t = 2, 10, 18, array 1 at t = 4, 12, array 2 at t = 6, 14, array 3 at t = 8, 16
    val s = new HalfSlidingCM(width = 1, depth = 4, window = 8, queried = 2)
    (1L to 17L).foreach(t => s.add(5L, t))
    // at t = 17 the clock has taken 8 steps: array 0 is under it (zeroed next, at t = 18)
    assert(s.arrayUnderClock == 0)
    // queried: array 1 (zeroed at 12: arrivals 12..17 = 6) and array 2 (zeroed at 14: 4); the window (9, 17] holds 8
    assert(s.query(5L) == 4L)
    assert(s.query(999L) == 4L) // every key shares the one counter of each array
    s.advance(18L) // zeroes array 0; array 1 is under the clock, arrays 2 (4) and 3 (zeroed at 16: 2) are read
    assert(s.arrayUnderClock == 1)
    assert(s.query(5L) == 2L)
  }

  test("width 2, depth 2, N = 4, 1 array queried: the clock walks array 0's columns, then array 1's") {
    // 4 counters per sweep of 4 time units: at t = s + 1 the clock zeroes counter s % 4, i.e.
    // (array 0, col 0) at t = 1, 5; (array 0, col 1) at 2, 6; (array 1, col 0) at 3, 7; (array 1, col 1) at 4, 8
    val s = new HalfSlidingCM(width = 2, depth = 2, window = 4, queried = 1)
    val key = 42L
    (0L to 6L).foreach(t => s.add(key, t))
    // at t = 6 the clock has taken 6 steps: counter 2, in array 1, is next; array 0 is read
    assert(s.arrayUnderClock == 1)
    // array 0, col 0 was zeroed at 5 (arrivals 5, 6), col 1 at 6 (arrival 6); the window (2, 6] holds 4
    val expected = if (s.columnOf(key, 0) == 0) 2L else 1L
    assert(s.query(key) == expected)
  }

  test("a key's own counters, without collisions, count its arrivals since the queried array was zeroed") {
    val s = new HalfSlidingCM(width = 4096, depth = 6, window = 600, queried = 3)
    (0L until 1200L).foreach(t => s.add(7L, t))
    val k = s.arrayUnderClock
    // 6 x 4096 counters per 600 time units: counter p of the sweep is zeroed at times ceil((p + 1) 600 / 24576) + 600 m
    def lastZeroed(array: Int): Long = {
      val p = array.toLong * 4096 + s.columnOf(7L, array)
      val first = ((p + 1) * 600 + 24575) / 24576 // the first time the clock has passed counter p
      first + 600L * ((1199L - first) / 600L)
    }
    val expected = (1 to 3).map(j => 1199L - lastZeroed((k + j) % 6) + 1).min
    assert(s.query(7L) == expected)
    assert(expected < 600L) // below the window's 600 arrivals: the part before the zeroing is missing
  }

  test("a jump of a whole sweep or more zeroes every counter; the bytes held; time never goes back") {
    val s = new HalfSlidingCM(width = 3, depth = 3, window = 10, queried = 2)
    (1L to 9L).foreach(t => s.add(3L, t))
    s.add(3L, 100L)
    assert(s.query(3L) == 1L)
    assert(s.bytesHeld == 3L * 3 * 4)
    assert(HalfSlidingCM.withinBytes(16384, window = 10).bytesHeld <= 16384)
    assertThrows[IllegalArgumentException](s.add(3L, 99L))
    assertThrows[IllegalArgumentException](new HalfSlidingCM(4, 3, 10, queried = 3))
  }
}
