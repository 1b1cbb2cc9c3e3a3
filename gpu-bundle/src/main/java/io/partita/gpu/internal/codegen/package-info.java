/**
 * OpenCL C generation: elementwise expressions for the ops the engine runs, and the kernel
 * sources (tiled MatMul with a per-partition epilogue, strided elementwise, SoftMax, LayerNorm,
 * direct convolution, pooling). Shapes travel in metadata buffers, not in the source, so partitions
 * that differ only in shape share one built program.
 */
package io.partita.gpu.internal.codegen;
