package ecmsketch

/** The former name of [[ecmsketch.eh]], the exponential-histogram family: its public sketch type under the
  * name earlier releases used, so that code importing `ecmsketch.window.EhSketch` still compiles.
  */
package object window {
  type EhSketch = ecmsketch.eh.EhSketch
  val EhSketch: ecmsketch.eh.EhSketch.type = ecmsketch.eh.EhSketch
}
