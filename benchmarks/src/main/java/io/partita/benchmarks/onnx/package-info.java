/** The benchmarks' ONNX model writer ({@link io.partita.benchmarks.onnx.OnnxWriter}). */
package io.partita.benchmarks.onnx;
