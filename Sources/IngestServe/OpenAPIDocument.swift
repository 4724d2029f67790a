/// The OpenAPI 3.1 description of the read API, served at `/openapi.json`,
/// written by hand from READ_API.md. Its schemas are JSON Schema
/// (2020-12); the end-to-end test checks that it is served and lists every
/// query, and holds each kind of answer (errors too) to its schema with
/// python-jsonschema, so the document cannot drift from what is served.
enum OpenAPIDocument {
    static let json = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "ingest read API",
    "version": "2",
    "description": "The mobile apps' queries (READ_API.md, Version 2), answered from the current snapshot, read-only; and the changeset from a client's version to current. Every answer of a snapshot carries its version in X-Snapshot-Version, an ETag (If-None-Match gets 304) and Cache-Control; JSON answers are gzipped when the client accepts it. GET and HEAD only: other methods get 405. Every refusal is JSON with a reason."
  },
  "servers": [
    {
      "url": "http://127.0.0.1:8080"
    }
  ],
  "paths": {
    "/": {
      "get": {
        "operationId": "query",
        "summary": "One of the queries, chosen by q",
        "description": "q=p pharmacy list; q=i item search (search and/or atc); q=ip pharmacies selling an item (aptcode); q=id item details at a pharmacy (aptcode, client_id); q=a ATC tree (optional atc); q=h price history of an item at a pharmacy (aptcode, client_id); q=eq cheapest equivalents of an item (aptcode, optional position and tier); q=changes changeset since a version (since). The lists (q=p, q=i, q=ip) page with limit and offset and say total and next.",
        "parameters": [
          {
            "name": "q",
            "in": "query",
            "required": true,
            "description": "Which query",
            "schema": {
              "type": "string",
              "enum": [
                "p",
                "i",
                "ip",
                "id",
                "a",
                "h",
                "eq",
                "changes"
              ]
            }
          },
          {
            "name": "latitude",
            "in": "query",
            "required": false,
            "description": "Client position, decimal degrees (q=p, q=ip, q=eq); with longitude (checked with any q; ignored where it means nothing)",
            "schema": {
              "type": "string",
              "pattern": "^[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)$"
            }
          },
          {
            "name": "longitude",
            "in": "query",
            "required": false,
            "description": "Client position, decimal degrees (q=p, q=ip, q=eq); with latitude (checked with any q; ignored where it means nothing)",
            "schema": {
              "type": "string",
              "pattern": "^[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)$"
            }
          },
          {
            "name": "inStock",
            "in": "query",
            "required": false,
            "description": "q=ip: 1 keeps pharmacies whose quantity is above zero or not reported",
            "schema": {
              "type": "string",
              "enum": [
                "0",
                "1"
              ]
            }
          },
          {
            "name": "onlyNearest",
            "in": "query",
            "required": false,
            "description": "1: only the nearest pharmacies, in one group named Nearest (needs a position): 10, or limit up to 50",
            "schema": {
              "type": "string",
              "enum": [
                "0",
                "1"
              ]
            }
          },
          {
            "name": "search",
            "in": "query",
            "required": false,
            "description": "Item search text (q=i): words match word prefixes of the item's name, producer and active substance; a code matches exactly (aptcode, package code, GTIN in any form, a scanned GS1 element string with AI 01); any text is answered",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "aptcode",
            "in": "query",
            "required": false,
            "description": "Item code (q=ip, q=id, q=h, q=eq); any letter case",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "client_id",
            "in": "query",
            "required": false,
            "description": "Pharmacy id (q=id, q=h)",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "atc",
            "in": "query",
            "required": false,
            "description": "ATC code whose children to list (q=a; the top level without it), or the ATC prefix the found items start with (q=i, with or without search); any letter case",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "description": "Page size of a list (q=i: 50 by default; q=p, q=ip: all; onlyNearest: 10, at most 50; q=eq: 20); at most 500, a larger one is clamped",
            "schema": {
              "type": "string",
              "pattern": "^[0-9]*[1-9][0-9]*$"
            }
          },
          {
            "name": "offset",
            "in": "query",
            "required": false,
            "description": "Where the page starts in the list (q=p, q=i, q=ip); 0 by default",
            "schema": {
              "type": "string",
              "pattern": "^[0-9]+$"
            }
          },
          {
            "name": "tier",
            "in": "query",
            "required": false,
            "description": "q=eq: rank by what the patient pays at this reimbursement tier (else by the shelf price)",
            "schema": {
              "type": "string",
              "enum": [
                "50",
                "75",
                "90",
                "100"
              ]
            }
          },
          {
            "name": "since",
            "in": "query",
            "required": false,
            "description": "Snapshot version the client holds (q=changes)",
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "The answer: JSON for the five queries, a changeset in SQLite's session format for q=changes",
            "headers": {
              "X-Snapshot-Version": {
                "schema": {
                  "type": "string"
                }
              },
              "ETag": {
                "description": "Weak tag of the snapshot version and the query",
                "schema": {
                  "type": "string"
                }
              },
              "Cache-Control": {
                "schema": {
                  "type": "string"
                }
              },
              "Repr-Digest": {
                "description": "q=changes: the changeset's SHA-256, sha-256=:BASE64: (RFC 9530)",
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "oneOf": [
                    {
                      "$ref": "#/components/schemas/PharmacyList"
                    },
                    {
                      "$ref": "#/components/schemas/ItemSearch"
                    },
                    {
                      "$ref": "#/components/schemas/ItemPharmacies"
                    },
                    {
                      "$ref": "#/components/schemas/ItemDetails"
                    },
                    {
                      "$ref": "#/components/schemas/ATCTree"
                    },
                    {
                      "$ref": "#/components/schemas/PriceHistory"
                    },
                    {
                      "$ref": "#/components/schemas/Equivalents"
                    }
                  ]
                }
              },
              "application/octet-stream": {
                "schema": {
                  "type": "string",
                  "contentMediaType": "application/octet-stream"
                }
              }
            }
          },
          "204": {
            "description": "q=changes: the client's version is current; nothing to apply"
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "410": {
            "$ref": "#/components/responses/Gone"
          },
          "503": {
            "$ref": "#/components/responses/NoSnapshot"
          },
          "304": {
            "description": "If-None-Match named the answer's ETag: it has not changed"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "405": {
            "$ref": "#/components/responses/MethodNotAllowed"
          },
          "500": {
            "$ref": "#/components/responses/ServerError"
          }
        }
      }
    },
    "/health": {
      "get": {
        "operationId": "health",
        "summary": "Which snapshot is served",
        "responses": {
          "200": {
            "description": "The snapshot served: its version, schema version and publication time",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "status",
                    "version",
                    "schema",
                    "published"
                  ],
                  "properties": {
                    "status": {
                      "const": "ok"
                    },
                    "version": {
                      "type": "string"
                    },
                    "schema": {
                      "type": "integer"
                    },
                    "published": {
                      "type": "string",
                      "description": "ISO 8601, UTC"
                    }
                  },
                  "additionalProperties": false
                }
              }
            }
          },
          "503": {
            "$ref": "#/components/responses/NoSnapshot"
          },
          "405": {
            "$ref": "#/components/responses/MethodNotAllowed"
          }
        }
      }
    },
    "/openapi.json": {
      "get": {
        "operationId": "openapi",
        "summary": "This document",
        "responses": {
          "200": {
            "description": "The OpenAPI document",
            "content": {
              "application/json": {}
            }
          },
          "405": {
            "$ref": "#/components/responses/MethodNotAllowed"
          }
        }
      }
    },
    "/metrics": {
      "get": {
        "operationId": "metrics",
        "summary": "Prometheus text: requests by query and status, latency, the served version's age, changeset builds",
        "responses": {
          "200": {
            "description": "Prometheus exposition format",
            "content": {
              "text/plain": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "405": {
            "$ref": "#/components/responses/MethodNotAllowed"
          }
        }
      }
    }
  },
  "components": {
    "schemas": {
      "PharmacyList": {
        "type": "object",
        "required": [
          "regions",
          "total"
        ],
        "properties": {
          "regions": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "n",
                "p"
              ],
              "properties": {
                "n": {
                  "type": "string"
                },
                "p": {
                  "type": "array",
                  "items": {
                    "$ref": "#/components/schemas/Pharmacy"
                  }
                }
              },
              "additionalProperties": false
            }
          },
          "total": {
            "$ref": "#/components/schemas/Total"
          },
          "next": {
            "$ref": "#/components/schemas/Next"
          }
        },
        "additionalProperties": false
      },
      "Pharmacy": {
        "type": "object",
        "required": [
          "i",
          "n",
          "d",
          "p",
          "a",
          "c",
          "o",
          "l",
          "ic",
          "s"
        ],
        "properties": {
          "i": {
            "type": "string"
          },
          "n": {
            "type": "string"
          },
          "d": {
            "type": "string",
            "description": "last data refresh, dd.MM.yyyy"
          },
          "p": {
            "type": "string"
          },
          "a": {
            "type": "string"
          },
          "c": {
            "type": "string"
          },
          "o": {
            "type": "string"
          },
          "l": {
            "type": "string",
            "description": "latitude,longitude"
          },
          "ic": {
            "type": "string",
            "description": "number of items in its price list"
          },
          "s": {
            "type": "string",
            "enum": [
              "0",
              "1"
            ],
            "description": "1 when its data is carried over (stale)"
          },
          "di": {
            "type": "string",
            "description": "distance, present only when the request gives a position"
          }
        },
        "additionalProperties": false
      },
      "ItemSearch": {
        "type": "object",
        "required": [
          "items",
          "total"
        ],
        "properties": {
          "items": {
            "type": "array",
            "maxItems": 50,
            "items": {
              "type": "object",
              "required": [
                "a",
                "n",
                "p"
              ],
              "properties": {
                "a": {
                  "type": "string"
                },
                "n": {
                  "type": "string"
                },
                "p": {
                  "type": "string"
                }
              },
              "additionalProperties": false
            }
          },
          "total": {
            "$ref": "#/components/schemas/Total"
          },
          "next": {
            "$ref": "#/components/schemas/Next"
          }
        },
        "additionalProperties": false
      },
      "ItemPharmacies": {
        "type": "object",
        "required": [
          "item_pharmacies",
          "total"
        ],
        "properties": {
          "item_pharmacies": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "n",
                "p"
              ],
              "properties": {
                "n": {
                  "type": "string"
                },
                "p": {
                  "type": "array",
                  "items": {
                    "$ref": "#/components/schemas/ItemOffer"
                  }
                }
              },
              "additionalProperties": false
            }
          },
          "total": {
            "$ref": "#/components/schemas/Total"
          },
          "next": {
            "$ref": "#/components/schemas/Next"
          }
        },
        "additionalProperties": false
      },
      "ItemOffer": {
        "type": "object",
        "required": [
          "i",
          "pi",
          "n",
          "p",
          "q"
        ],
        "properties": {
          "i": {
            "type": "string"
          },
          "pi": {
            "type": "string"
          },
          "n": {
            "type": "string"
          },
          "p": {
            "type": "string",
            "description": "shelf price in the snapshot's currency, as its country writes it: 2.37€, £2.37, 2,37 kr"
          },
          "q": {
            "type": "string",
            "description": "units in stock; empty where the pharmacy reports prices only"
          },
          "di": {
            "type": "string"
          }
        },
        "additionalProperties": false
      },
      "ItemDetails": {
        "type": "object",
        "required": [
          "item_details"
        ],
        "properties": {
          "item_details": {
            "type": "array",
            "maxItems": 1,
            "items": {
              "$ref": "#/components/schemas/ItemDetail"
            }
          }
        },
        "additionalProperties": false
      },
      "ItemDetail": {
        "type": "object",
        "required": [
          "itemId",
          "itemName",
          "producerName",
          "pharmacyName",
          "price",
          "priceLimit",
          "priceDisc50",
          "priceDisc75",
          "priceDisc90",
          "priceDisc100",
          "diagnose50",
          "diagnose75",
          "diagnose100",
          "info50",
          "info75",
          "info100",
          "atc",
          "actSubst",
          "diagExpl",
          "infoUrl",
          "imageUrl",
          "form",
          "strength",
          "packSize",
          "rx",
          "spcUrl"
        ],
        "properties": {
          "itemId": {
            "type": "string"
          },
          "itemName": {
            "type": "string"
          },
          "producerName": {
            "type": "string"
          },
          "pharmacyName": {
            "type": "string"
          },
          "price": {
            "type": "string"
          },
          "priceLimit": {
            "type": "string"
          },
          "priceDisc50": {
            "type": "string"
          },
          "priceDisc75": {
            "type": "string"
          },
          "priceDisc90": {
            "type": "string"
          },
          "priceDisc100": {
            "type": "string"
          },
          "diagnose50": {
            "type": "string"
          },
          "diagnose75": {
            "type": "string"
          },
          "diagnose100": {
            "type": "string"
          },
          "info50": {
            "type": "string"
          },
          "info75": {
            "type": "string"
          },
          "info100": {
            "type": "string"
          },
          "atc": {
            "type": "string"
          },
          "actSubst": {
            "type": "string"
          },
          "diagExpl": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "name",
                "text"
              ],
              "properties": {
                "name": {
                  "type": "string"
                },
                "text": {
                  "type": "string"
                }
              },
              "additionalProperties": false
            }
          },
          "infoUrl": {
            "type": "string"
          },
          "imageUrl": {
            "type": "string"
          },
          "form": {
            "type": "string",
            "description": "pharmaceutical form, from the medicine register; empty when it does not know the item"
          },
          "strength": {
            "type": "string"
          },
          "packSize": {
            "type": "string"
          },
          "rx": {
            "type": "string",
            "enum": [
              "1",
              "0",
              ""
            ],
            "description": "1 prescription only, 0 not, empty unknown"
          },
          "spcUrl": {
            "type": "string"
          }
        },
        "additionalProperties": false
      },
      "ATCTree": {
        "type": "object",
        "required": [
          "atc"
        ],
        "properties": {
          "atc": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "a",
                "n",
                "c"
              ],
              "properties": {
                "a": {
                  "type": "string"
                },
                "n": {
                  "type": "string"
                },
                "c": {
                  "type": "string",
                  "description": "number of items under it"
                }
              },
              "additionalProperties": false
            }
          }
        },
        "additionalProperties": false
      },
      "PriceHistory": {
        "type": "object",
        "required": [
          "price_history"
        ],
        "properties": {
          "price_history": {
            "type": "array",
            "description": "Each change of the shelf price, newest first; empty for an unknown item or pharmacy",
            "items": {
              "type": "object",
              "required": [
                "d",
                "p"
              ],
              "properties": {
                "d": {
                  "type": "string",
                  "description": "date of the export that first showed the price, dd.mm.yyyy"
                },
                "p": {
                  "type": "string",
                  "description": "shelf price"
                }
              },
              "additionalProperties": false
            }
          }
        },
        "additionalProperties": false
      },
      "Error": {
        "type": "object",
        "required": [
          "error"
        ],
        "properties": {
          "error": {
            "type": "string"
          }
        },
        "additionalProperties": false
      },
      "Equivalents": {
        "type": "object",
        "required": [
          "equivalents"
        ],
        "properties": {
          "equivalents": {
            "type": "array",
            "description": "Offers of the items the register calls the same medicine (same ATC code, strength, form and pack size), where they are sold, by the patient's price at the tier (or the shelf price), then by distance",
            "items": {
              "type": "object",
              "required": [
                "i",
                "n",
                "pi",
                "pn",
                "p",
                "pp",
                "di"
              ],
              "properties": {
                "i": {
                  "type": "string",
                  "description": "item code"
                },
                "n": {
                  "type": "string",
                  "description": "item name"
                },
                "pi": {
                  "type": "string",
                  "description": "pharmacy id"
                },
                "pn": {
                  "type": "string",
                  "description": "pharmacy name"
                },
                "p": {
                  "type": "string",
                  "description": "shelf price"
                },
                "pp": {
                  "type": "string",
                  "description": "patient's price at the tier; empty without a tier or where the package has none"
                },
                "di": {
                  "type": "string",
                  "description": "distance from the client; empty without a position or coordinates"
                }
              },
              "additionalProperties": false
            }
          }
        },
        "additionalProperties": false
      },
      "Total": {
        "type": "string",
        "pattern": "^[0-9]+$",
        "description": "the number of matches in all"
      },
      "Next": {
        "type": "string",
        "pattern": "^[0-9]+$",
        "description": "the offset of the next page; absent on the last"
      }
    },
    "responses": {
      "MethodNotAllowed": {
        "description": "A method other than GET or HEAD",
        "headers": {
          "Allow": {
            "schema": {
              "type": "string"
            }
          }
        },
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "BadRequest": {
        "description": "Missing or unknown q, a missing required parameter, or a malformed position",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "Gone": {
        "description": "q=changes: the client's version is no longer kept; download the whole snapshot",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "NoSnapshot": {
        "description": "No snapshot has been published yet",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "NotFound": {
        "description": "No such path",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "ServerError": {
        "description": "The server could not answer; the reason names a reference in the server's log, never SQL or paths",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      }
    }
  }
}
"""#
}
