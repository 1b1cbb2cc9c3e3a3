package io.partita.cache.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;

/**
 * Who may have written a file. Kernels loaded from the persistent cache are code that will run, so
 * a directory or entry that another user owns or can write is refused. Where the file system has no
 * POSIX view (e.g. FAT, some Windows setups) the check is skipped.
 */
final class FileSecurity {
    static final FileAttribute<?>[] NONE = new FileAttribute<?>[0];
    private static volatile UserPrincipal me;

    private FileSecurity() {
    }

    /** Why this file may not be trusted, or null. Symbolic links are refused when not followed. */
    static String insecurity(Path p, boolean followLinks) throws IOException {
        LinkOption[] opts = followLinks ? new LinkOption[0] : new LinkOption[] {LinkOption.NOFOLLOW_LINKS};
        PosixFileAttributeView view = Files.getFileAttributeView(p, PosixFileAttributeView.class, opts);
        if (view == null) {
            return null;
        }
        PosixFileAttributes a;
        try {
            a = view.readAttributes();
        } catch (UnsupportedOperationException e) {
            return null;
        }
        if (a.isSymbolicLink()) {
            return p + " is a symbolic link";
        }
        UserPrincipal user = currentUser();
        if (user != null && !a.owner().equals(user)) {
            return p + " is owned by " + a.owner().getName() + ", not by the user running Partita (" + user.getName()
                    + ")";
        }
        if (a.permissions().contains(PosixFilePermission.GROUP_WRITE)
                || a.permissions().contains(PosixFilePermission.OTHERS_WRITE)) {
            return p + " is writable by group or others (" + PosixFilePermissions.toString(a.permissions()) + ")";
        }
        return null;
    }

    /** Owner-only attributes for new directories and files, or none where there is no POSIX view. */
    static FileAttribute<?>[] ownerOnly(Path dir, boolean directory) throws IOException {
        Boolean posix = POSIX.get(dir);
        if (posix == null) {
            // the file system provider's own answer: Files.getFileStore would read the whole mount table,
            // which costs a fresh process more than the load it guards
            posix = Files.getFileAttributeView(dir, PosixFileAttributeView.class) != null;
            POSIX.put(dir, posix);
        }
        return !posix ? NONE : directory ? DIRECTORY : FILE;
    }

    private static final java.util.Map<Path, Boolean> POSIX = new java.util.concurrent.ConcurrentHashMap<>();
    private static final FileAttribute<?>[] DIRECTORY = {
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))};
    private static final FileAttribute<?>[] FILE = {
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))};

    /** The user this process writes files as: the owner of a file it just created (user.name can lie). */
    private static UserPrincipal currentUser() throws IOException {
        UserPrincipal u = me;
        if (u == null) {
            try {
                Path probe = Files.createTempFile("partita-owner", ".probe");
                try {
                    u = Files.getOwner(probe);
                } finally {
                    Files.deleteIfExists(probe);
                }
            } catch (IOException | UnsupportedOperationException e) {
                // no writable temporary directory: trust the name the JVM was given
                u = java.nio.file.FileSystems.getDefault().getUserPrincipalLookupService()
                        .lookupPrincipalByName(System.getProperty("user.name"));
            }
            me = u;
        }
        return u;
    }
}
