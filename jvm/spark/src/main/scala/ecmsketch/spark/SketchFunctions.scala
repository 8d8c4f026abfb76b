package ecmsketch.spark

/** The expressions of the ECM-sketch, exponential-histogram, deterministic-wave and distinct-count functions, and of `sketch_info`. */
private[spark] object SketchFunctions {
  import SqlFunctions.impl

  val all: Seq[SqlFunctions.Impl] = Seq(
    impl("ecm_agg", classOf[EcmAgg])(a => EcmAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6), a(7), a(8), a(9), a(10), a(11), a(12))),
    impl("ecm_merge", classOf[EcmMergeAgg])(a => EcmMergeAgg(a(0))),
    impl("ecm_point", classOf[EcmPoint])(a => EcmPoint(a)),
    impl("ecm_inner_product", classOf[EcmInnerProduct])(a => EcmInnerProduct(a)),
    impl("ecm_self_join", classOf[EcmSelfJoin])(a => EcmSelfJoin(a)),
    impl("ecm_total", classOf[EcmTotal])(a => EcmTotal(a)),
    impl("eh_agg", classOf[EhAgg])(a => EhAgg(a(0), a(1), a(2), a(3), a(4), a(5))),
    impl("eh_merge", classOf[EhMergeAgg])(a => EhMergeAgg(a(0))),
    impl("eh_count", classOf[EhCount])(a => EhCount(a)),
    impl("dwave_agg", classOf[DwaveAgg])(a => DwaveAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6))),
    impl("dwave_merge", classOf[DwaveMergeAgg])(a => DwaveMergeAgg(a(0))),
    impl("dwave_count", classOf[DwaveCount])(a => DwaveCount(a)),
    impl("distinct_agg", classOf[DistinctAgg])(a => DistinctAgg(a(0), a(1), a(2), a(3), a(4), a(5), a(6))),
    impl("distinct_merge", classOf[DistinctMergeAgg])(a => DistinctMergeAgg(a(0))),
    impl("distinct_count", classOf[DistinctCount])(a => DistinctCount(a)),
    impl("sketch_info", classOf[SketchInfo])(a => SketchInfo(a)))
}
