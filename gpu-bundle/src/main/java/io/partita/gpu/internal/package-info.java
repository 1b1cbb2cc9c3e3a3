/** The gpu engine's backend: OpenCL devices as engines of kind gpu, claims and compilation. */
package io.partita.gpu.internal;
