/** The ACL-style backend's benchmark: cached against on-demand pooled memory, dnnl for reference. */
package io.partita.benchmarks.acl;
