/**
 * Real network architectures built as ONNX models with seeded random weights: ResNet-50 v1.5
 * ({@link io.partita.benchmarks.models.ResNet50}) and a BERT-base encoder layer
 * ({@link io.partita.benchmarks.models.BertLayer}), the anchors benchmark's network cases, also
 * written to files by {@link io.partita.benchmarks.models.ModelsCommand}.
 */
package io.partita.benchmarks.models;
