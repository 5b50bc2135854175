package io.jfabric.provider.shm.ffi;

/**
 * The Linux errno values the shm bindings return (negated). They match libfabric's FI_E*
 * numbers for the low range, which libfabric takes from errno.h.
 */
public final class Errno {
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int ESRCH = 3;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int EAGAIN = 11;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EEXIST = 17;
    public static final int EINVAL = 22;
    public static final int ENOSYS = 38;
    public static final int EPROTO = 71;
    public static final int EMSGSIZE = 90;
    public static final int ECONNREFUSED = 111;
    public static final int ECONNRESET = 104;
    public static final int ETIMEDOUT = 110;

    private Errno() {
    }
}
