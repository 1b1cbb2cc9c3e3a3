/** The DNNL-style backend: claims, compilation into cached primitives, execution with packed constants. */
package io.partita.backend.dnnl.internal;
