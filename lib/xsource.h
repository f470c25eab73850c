/*
 * xsource.h --- creation times that other software stored in xattrs
 * (placeholder: being written).
 */
#ifndef E4TIME_XSOURCE_H
#define E4TIME_XSOURCE_H
#endif
