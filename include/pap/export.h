/* SPDX-License-Identifier: MIT */
/*
 * pap/export.h - marks the functions libpaprt exports.
 */
#ifndef PAP_EXPORT_H
#define PAP_EXPORT_H

#ifndef PAP_API
#define PAP_API __attribute__((visibility("default")))
#endif

#endif /* PAP_EXPORT_H */
