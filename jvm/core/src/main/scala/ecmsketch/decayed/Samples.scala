package ecmsketch.decayed

/** One copy's weighted sample at the query level: values and decayed weights (in weight units). */
private[decayed] final class Samples(val values: Array[Double], val weights: Array[Double]) {
  def total: Double = weights.sum
  def fraction(p: Double => Boolean): Double = {
    val t = total
    if (t <= 0) 0.0 else { var s = 0.0; var k = 0; while (k < values.length) { if (p(values(k))) s += weights(k); k += 1 }; s / t }
  }
  /** The smallest value whose weighted rank (weight of values <= it over the total) reaches q. */
  def quantile(q: Double): Option[Double] = {
    val t = total
    if (t <= 0) None
    else {
      val idx = values.indices.filter(weights(_) > 0).sortBy(values(_))
      var acc = 0.0
      var k = 0
      var res = Option.empty[Double]
      while (res.isEmpty && k < idx.length) {
        val v = values(idx(k))
        while (k < idx.length && values(idx(k)) == v) { acc += weights(idx(k)); k += 1 }
        if (acc / t >= q || k == idx.length) res = Some(v)
      }
      res
    }
  }
}
