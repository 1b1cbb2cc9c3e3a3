/**
 * Native anchors: the same matmul, convolution and MLP cases run by Partita, by native oneDNN
 * (JavaCPP presets) and by ONNX Runtime (Java API), each in its own child JVM with the same thread
 * count, so Partita's throughput can be stated as a ratio to theirs measured in the same run; and
 * whole networks ({@link io.partita.benchmarks.models}) run by Partita and ONNX Runtime, whose
 * outputs are compared.
 *
 * <ul>
 *   <li>{@link io.partita.benchmarks.anchors.Case} — the workloads and their seeded data;</li>
 *   <li>{@link io.partita.benchmarks.anchors.Contender} — what an engine implements;</li>
 *   <li>{@link io.partita.benchmarks.anchors.Contenders} — the registry, and where Partita is to be
 *       added;</li>
 *   <li>{@link io.partita.benchmarks.anchors.OneDnnContender},
 *       {@link io.partita.benchmarks.anchors.OrtContender} (with
 *       {@link io.partita.benchmarks.anchors.OnnxModel}, the cases' ONNX models through
 *       {@link io.partita.benchmarks.onnx.OnnxWriter}) — the
 *       anchors;</li>
 *   <li>{@link io.partita.benchmarks.anchors.AnchorsCommand} (parent) and
 *       {@link io.partita.benchmarks.anchors.ChildMain} (child) — the harness.</li>
 * </ul>
 */
package io.partita.benchmarks.anchors;
