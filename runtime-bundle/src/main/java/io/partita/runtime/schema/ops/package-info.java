/** Op schemas of the oneDNN Graph op set, one file per op family. */
package io.partita.runtime.schema.ops;
