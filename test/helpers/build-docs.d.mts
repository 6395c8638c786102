export declare const DOCS_DIST: string;
export declare function ensureBuiltDocs(): boolean;
