/** The primitives: MatMul, Convolution, element-wise, softmax, normalization, pooling, reduction, data movement. */
package io.partita.backend.dnnl.internal.ops;
