package ecmsketch.eh

/** Queries of exponential histograms that only the suites ask. */
object EhTestUtil {
  /** Weight with timestamps > x. */
  def estimateAfter(h: ExpHistogram, x: Long): Double = if (x == Long.MaxValue) 0.0 else h.estimateFrom(x + 1)
  def boundsAfter(h: ExpHistogram, x: Long): (Long, Long) = if (x == Long.MaxValue) (0L, 0L) else h.boundsFrom(x + 1)

}
