// The document's query flags take `1` and `0` as well as `true` and `false`
// (openapi/components/schemas/QueryFlag.yaml), as the subscription URLs calendar apps are given do
// (`?ical=1`); http/query.ts turns them into booleans before validation, so the code reads booleans.

/** A query's values as handlers and services read them: each flag a boolean. */
export type DecodedQuery<Q> = { [P in keyof Q]: Q[P] extends infer V ? (V extends '1' | '0' ? boolean : V) : never };
