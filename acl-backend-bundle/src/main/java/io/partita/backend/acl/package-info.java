/**
 * ARM-Compute-style operators with pooled working memory land here.
 * This bundle is deliberately empty until then: it registers no service and claims no op.
 */
package io.partita.backend.acl;
