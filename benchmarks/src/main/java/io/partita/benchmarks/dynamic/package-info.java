/** The graph compiler's benchmark: one dynamic compilation against per-shape compilation, fused against per-op. */
package io.partita.benchmarks.dynamic;
