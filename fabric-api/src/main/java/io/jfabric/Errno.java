package io.jfabric;

/**
 * Error numbers with libfabric's values ({@code fi_errno.h}): the POSIX numbers it reuses and its own
 * codes from 256 on. The data path returns them negated ({@code -Errno.EAGAIN}), as libfabric does.
 */
public final class Errno {
    public static final int SUCCESS = 0;
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int ESRCH = 3;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int E2BIG = 7;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    public static final int EMFILE = 24;
    public static final int ENOSPC = 28;
    public static final int ENOSYS = 38;
    public static final int ENOMSG = 42;
    public static final int ENODATA = 61;
    public static final int EPROTO = 71;
    public static final int EOVERFLOW = 75;
    public static final int EMSGSIZE = 90;
    public static final int ENOPROTOOPT = 92;
    public static final int EOPNOTSUPP = 95;
    public static final int EADDRINUSE = 98;
    public static final int EADDRNOTAVAIL = 99;
    public static final int ENETDOWN = 100;
    public static final int ENETUNREACH = 101;
    public static final int ECONNABORTED = 103;
    public static final int ECONNRESET = 104;
    public static final int ENOBUFS = 105;
    public static final int EISCONN = 106;
    public static final int ENOTCONN = 107;
    public static final int ESHUTDOWN = 108;
    public static final int ETIMEDOUT = 110;
    public static final int ECONNREFUSED = 111;
    public static final int EHOSTDOWN = 112;
    public static final int EHOSTUNREACH = 113;
    public static final int EALREADY = 114;
    public static final int EINPROGRESS = 115;
    public static final int EREMOTEIO = 121;
    public static final int ECANCELED = 125;
    public static final int EKEYREJECTED = 129;

    /** libfabric's own codes (FI_ERRNO_OFFSET = 256). */
    public static final int EOTHER = 256;
    public static final int ETOOSMALL = 257;
    public static final int EOPBADSTATE = 258;
    public static final int EAVAIL = 259;
    public static final int EBADFLAGS = 260;
    public static final int ENOEQ = 261;
    public static final int EDOMAIN = 262;
    public static final int ENOCQ = 263;
    public static final int ECRC = 264;
    public static final int ETRUNC = 265;
    public static final int ENOKEY = 266;
    public static final int ENOAV = 267;
    public static final int EOVERRUN = 268;
    public static final int ENORX = 269;

    private Errno() {
    }

    /** Text for an error number, positive or negated, as {@code fi_strerror} gives it. */
    public static String strerror(int errno) {
        int e = Math.abs(errno);
        return switch (e) {
            case SUCCESS -> "Success";
            case EPERM -> "Operation not permitted";
            case ENOENT -> "No such file or directory";
            case ESRCH -> "No such process";
            case EINTR -> "Interrupted system call";
            case EIO -> "Input/output error";
            case E2BIG -> "Argument list too long";
            case EBADF -> "Bad file descriptor";
            case EAGAIN -> "Resource temporarily unavailable";
            case ENOMEM -> "Cannot allocate memory";
            case EACCES -> "Permission denied";
            case EFAULT -> "Bad address";
            case EBUSY -> "Device or resource busy";
            case EEXIST -> "File exists";
            case ENODEV -> "No such device";
            case EINVAL -> "Invalid argument";
            case EMFILE -> "Too many open files";
            case ENOSPC -> "No space left on device";
            case ENOSYS -> "Function not implemented";
            case ENOMSG -> "No message of desired type";
            case ENODATA -> "No data available";
            case EPROTO -> "Protocol error";
            case EOVERFLOW -> "Value too large for defined data type";
            case EMSGSIZE -> "Message too long";
            case ENOPROTOOPT -> "Protocol not available";
            case EOPNOTSUPP -> "Operation not supported";
            case EADDRINUSE -> "Address already in use";
            case EADDRNOTAVAIL -> "Cannot assign requested address";
            case ENETDOWN -> "Network is down";
            case ENETUNREACH -> "Network is unreachable";
            case ECONNABORTED -> "Software caused connection abort";
            case ECONNRESET -> "Connection reset by peer";
            case ENOBUFS -> "No buffer space available";
            case EISCONN -> "Transport endpoint is already connected";
            case ENOTCONN -> "Transport endpoint is not connected";
            case ESHUTDOWN -> "Cannot send after transport endpoint shutdown";
            case ETIMEDOUT -> "Connection timed out";
            case ECONNREFUSED -> "Connection refused";
            case EHOSTDOWN -> "Host is down";
            case EHOSTUNREACH -> "No route to host";
            case EALREADY -> "Operation already in progress";
            case EINPROGRESS -> "Operation now in progress";
            case EREMOTEIO -> "Remote I/O error";
            case ECANCELED -> "Operation canceled";
            case EKEYREJECTED -> "Key was rejected by service";
            case EOTHER -> "Unspecified error";
            case ETOOSMALL -> "Provided buffer is too small";
            case EOPBADSTATE -> "Operation not permitted in current state";
            case EAVAIL -> "Error available";
            case EBADFLAGS -> "Flags not supported";
            case ENOEQ -> "Missing or unavailable event queue";
            case EDOMAIN -> "Invalid resource domain";
            case ENOCQ -> "Missing or unavailable completion queue";
            case ECRC -> "CRC error";
            case ETRUNC -> "Truncation error";
            case ENOKEY -> "Required key not available";
            case ENOAV -> "Missing or unavailable address vector";
            case EOVERRUN -> "Queue has been overrun";
            case ENORX -> "Receiver not ready, no receive buffers available";
            default -> "Unknown error " + e;
        };
    }

    /** The symbolic name ("FI_EAGAIN") of an error number, positive or negated. */
    public static String name(int errno) {
        int e = Math.abs(errno);
        for (var f : Errno.class.getFields()) {
            try {
                if (f.getType() == int.class && f.getInt(null) == e) {
                    return e == 0 ? "FI_SUCCESS" : "FI_" + f.getName();
                }
            } catch (IllegalAccessException ignored) {
                // public static final fields are always accessible
            }
        }
        return "FI_E" + e;
    }
}
