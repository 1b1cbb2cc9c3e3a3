/** Reference kernels, one file per op family, computed in double precision. */
package io.partita.backend.reference.ops;
