package ecmsketch.decayed

import ecmsketch.core.SketchException

/** A decay named in SQL: 'window' (param W: ages < W count fully), 'exp' (param = half-life:
  * w 2^(-age/param)) or 'poly' (param = alpha: w (age+1)^(-alpha)). Ages are in the units of the
  * timestamps (seconds for TIMESTAMP, whose ticks are microseconds: `ticksPerUnit` 1e6).
  */
sealed abstract class Decay(val id: Int, val name: String) extends Serializable {
  def param: Double
  /** g(age) for an age in ticks (age >= 0): the fraction of a weight left, non-increasing, g(0) = 1. */
  def g(ageTicks: Long, ticksPerUnit: Long): Double
  def describe: String = s"decay => '$name', decay_param => $param"
}

object Decay {
  final val GeneralId = 0

  final case class Window(param: Double) extends Decay(1, "window") {
    /** The window in ticks: ages x with x / unit < W, i.e. x < ceil(W unit). */
    def ticks(ticksPerUnit: Long): Long = {
      val x = math.ceil(param * ticksPerUnit.toDouble)
      if (x >= 4.6e18) Long.MaxValue / 4 else math.max(1L, x.toLong)
    }
    def g(ageTicks: Long, ticksPerUnit: Long): Double = if (ageTicks < ticks(ticksPerUnit)) 1.0 else 0.0
  }

  final case class Exp(param: Double) extends Decay(2, "exp") {
    def g(ageTicks: Long, ticksPerUnit: Long): Double =
      StrictMath.pow(2.0, -(ageTicks.toDouble / ticksPerUnit.toDouble) / param)
  }

  final case class Poly(param: Double) extends Decay(3, "poly") {
    def g(ageTicks: Long, ticksPerUnit: Long): Double =
      StrictMath.pow(ageTicks.toDouble / ticksPerUnit.toDouble + 1.0, -param)
  }

  final val Names = "'window', 'exp' or 'poly'"

  /** The decay named `name` with parameter `param`, validated. */
  def apply(name: String, param: Double): Decay = {
    val n = if (name == null) throw new SketchException(s"decay must be $Names, got NULL") else name.trim.toLowerCase
    def need(ok: Boolean, what: String): Unit =
      if (!ok) throw new SketchException(s"decay_param of '$n' must be $what, got $param")
    n match {
      case "window" => need(!param.isNaN && param > 0 && !param.isInfinite, "a positive window W (ages < W count)"); Window(param)
      case "exp" => need(!param.isNaN && param > 0 && !param.isInfinite, "a positive half-life"); Exp(param)
      case "poly" => need(!param.isNaN && param > 0 && param <= 64, "an exponent alpha in (0, 64]"); Poly(param)
      case other => throw new SketchException(s"decay must be $Names, got '$other'")
    }
  }

  def byId(id: Int, param: Double): Decay = id match {
    case 1 => apply("window", param)
    case 2 => apply("exp", param)
    case 3 => apply("poly", param)
    case other => throw new SketchException(s"unknown decay id $other")
  }
}

/** The integral decay a fixed-decay sketch is built for (CTX §1.1, Definition 1.2):
  * f(W, x) = floor(W g(x)) for the exponential and polynomial decays (W = weight * resolution), and
  * W for x < window (0 after) for the sliding window. `ticksPerUnit` turns ticks into the decay's units.
  */
final class IntegralDecay(val decay: Decay, val ticksPerUnit: Long) extends Serializable {
  /** Ages beyond this count as "never expires" (saturating expiry). */
  final val MaxAge: Long = Long.MaxValue / 4

  private val windowTicks: Long = decay match { case w: Decay.Window => w.ticks(ticksPerUnit); case _ => 0L }

  /** f(W, x) for x >= 0. */
  def f(w: Long, x: Long): Long = decay match {
    case _: Decay.Window => if (x < windowTicks) w else 0L
    case d =>
      val v = w.toDouble * d.g(x, ticksPerUnit)
      if (v >= w.toDouble) w else math.floor(v).toLong
  }

  /** min{x >= 0 : f(W, x) <= delta} for 0 <= delta < W (Lemma 3.5; MaxAge if beyond it). A closed
    * form guess checked against f, else Algorithm 4's binary search, returning r (CTX §3.3).
    */
  def minAge(w: Long, delta: Long): Long = {
    if (delta >= w) return 0L // see minAgeOf
    if (windowTicks > 0) return windowTicks
    // the pair (W, Delta) recurs: W = weight * resolution takes few values (a count has W =
    // resolution), and Delta is the first selected offset of a level, below W. The expiry search
    // costs two or more StrictMath.pow, a lookup none. The first MaxDirects values of W up to
    // DirectMax get a table indexed by Delta (one load); others share a hashed memo.
    val dt = directFor(w)
    if (dt != null) {
      val known = dt.agePlus1(delta.toInt)
      if (known != 0L) return known - 1L
      val age = minAgeOf(w, delta)
      dt.agePlus1(delta.toInt) = age + 1L // MaxAge + 1 does not overflow
      return age
    }
    val slot = {
      val h = (w * 0x9E3779B97F4A7C15L) ^ (delta * 0xC2B2AE3D27D4EB4FL)
      ((h ^ (h >>> 29)).toInt >>> (32 - IntegralDecay.MemoBits))
    }
    var mm = memo
    if (mm == null) { mm = new Array[IntegralDecay.Memo](1 << IntegralDecay.MemoBits); memo = mm }
    val m = mm(slot)
    if (m != null && m.w == w && m.delta == delta) m.age
    else {
      val age = minAgeOf(w, delta)
      mm(slot) = new IntegralDecay.Memo(w, delta, age)
      age
    }
  }

  @transient private var memo: Array[IntegralDecay.Memo] = null
  // Threads share a decay (IntegralDecay.of), and so the memo and the tables: a slot holds null or 0,
  // or the one correct answer, and a 64-bit HotSpot JVM reads and writes longs and references whole
  // (the tables' fields are final), so a racing reader sees either; a race that loses a table or a
  // slot costs a recomputation.
  @transient private var directs: Array[IntegralDecay.Direct] = null

  /** W's table of ages (created on first use while fewer than MaxDirects exist), or null. */
  private def directFor(w: Long): IntegralDecay.Direct = if (w > IntegralDecay.DirectMax) null else {
    var ds = directs
    if (ds == null) { ds = new Array[IntegralDecay.Direct](IntegralDecay.MaxDirects); directs = ds }
    var k = 0
    while (k < ds.length) {
      val d = ds(k)
      if (d == null) { val n = new IntegralDecay.Direct(w); ds(k) = n; return n }
      if (d.w == w) return d
      k += 1
    }
    null
  }

  private def minAgeOf(w: Long, delta: Long): Long = {
    // f(W, 0) = W for every decay whose age 0 counts fully (g(0) = 1: pow(2, -0.0) and pow(1, y) are
    // exactly 1), so this is the check f(W, 0) <= delta without a pow per call; a window of 0 ticks
    // (f(W, 0) = 0) returns 0 below, as that check did
    if (delta >= w) return 0L
    decay match {
      case _: Decay.Window => windowTicks
      case d =>
        val ratio = w.toDouble / (delta + 1).toDouble
        val unit = ticksPerUnit.toDouble
        val guessD = d match {
          case Decay.Exp(h) => h * unit * (math.log(ratio) / math.log(2.0))
          case Decay.Poly(alpha) => unit * (math.pow(ratio, 1.0 / alpha) - 1.0)
          case _ => 0.0
        }
        val guess = if (guessD.isNaN || guessD >= MaxAge.toDouble) MaxAge else math.max(0L, math.floor(guessD).toLong + 1)
        if (guess < MaxAge && f(w, guess) <= delta && (guess == 0 || f(w, guess - 1) > delta)) guess
        else if (f(w, MaxAge) > delta) MaxAge
        else {
          // Algorithm 4: f(w, l) > delta >= f(w, r) throughout; returns r (not the printed t')
          var l = 0L; var r = MaxAge
          while (r - l > 1) { val mid = l + (r - l) / 2; if (f(w, mid) > delta) l = mid else r = mid }
          r
        }
    }
  }
}

object IntegralDecay {
  /** The integral decay of `decay` in ticks of `ticksPerUnit`, shared by every sketch built for it
    * (a GROUP BY builds one sketch a group: they share the expiry tables). At most MaxShared are
    * kept; others get their own.
    */
  def of(decay: Decay, ticksPerUnit: Long): IntegralDecay = {
    val key = (decay, ticksPerUnit)
    val known = shared.get(key)
    if (known != null) known
    else if (shared.size >= MaxShared) new IntegralDecay(decay, ticksPerUnit)
    else { val d = new IntegralDecay(decay, ticksPerUnit); val prev = shared.putIfAbsent(key, d); if (prev == null) d else prev }
  }
  private val shared = new java.util.concurrent.ConcurrentHashMap[(Decay, Long), IntegralDecay]()
  private final val MaxShared = 64
  private final val MemoBits = 10
  private final class Memo(val w: Long, val delta: Long, val age: Long)
  /** The largest W with a direct table (8,192 longs: a weight of up to 8 at the default resolution). */
  private final val DirectMax = 1L << 13
  /** Direct tables per decay: at most 16 x 64 KB. */
  private final val MaxDirects = 16
  /** min_age(W, Delta) + 1 for Delta < W, 0 while not computed. */
  private final class Direct(val w: Long) { val agePlus1 = new Array[Long](w.toInt) }
}
