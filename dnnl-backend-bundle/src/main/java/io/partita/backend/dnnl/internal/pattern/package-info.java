/** Which ops the backend claims: fusion chains (a base op and its post-ops) and single-op primitives. */
package io.partita.backend.dnnl.internal.pattern;
