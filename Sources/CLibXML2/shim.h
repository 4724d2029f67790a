#ifndef INGEST_CLIBXML2_SHIM_H
#define INGEST_CLIBXML2_SHIM_H
#include <libxml/xmlversion.h>
/* Debian builds libxml2 with ICU, and its encoding.h then pulls in ICU's
 * headers, which clash with the ICU copy inside Swift's Foundation. Nothing
 * here touches the ICU-only fields of xmlCharEncodingHandler (only pointers
 * to it pass through), so the ICU part of the headers is left out. */
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
/* The tests read the HTML run report with libxml2's HTML parser and XPath. */
#include <libxml/HTMLparser.h>
#include <libxml/xpath.h>
#endif
