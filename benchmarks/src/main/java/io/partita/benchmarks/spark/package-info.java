/**
 * Spark batch inference: Partita's transformer against ONNX Runtime Java in {@code mapPartitions}
 * ({@link io.partita.benchmarks.spark.SparkBenchmark}).
 */
package io.partita.benchmarks.spark;
