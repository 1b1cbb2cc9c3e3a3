/** The primitive model: a descriptor (op, shapes, types, attributes, post-ops) becomes a primitive, cached. */
package io.partita.backend.dnnl.internal.primitive;
