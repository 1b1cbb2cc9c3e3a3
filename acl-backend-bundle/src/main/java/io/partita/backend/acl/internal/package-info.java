/** The ACL-style backend: claims, primitives with cached memory managers, kernels. */
package io.partita.backend.acl.internal;
