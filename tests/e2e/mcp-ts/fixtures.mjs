// The repository most tests start from: the seed's three files, a text
// file and a notebook with cell ids (nbformat 4.5).
export const NOTEBOOK = JSON.stringify({
  cells: [
    { cell_type: "code", execution_count: 1, id: "c1", metadata: {}, outputs: [], source: ["print(1)"] },
    { cell_type: "markdown", id: "c2", metadata: {}, source: ["# Title"] },
  ],
  metadata: {},
  nbformat: 4,
  nbformat_minor: 5,
}, null, 1) + "\n";

export const FILES = {
  "backend/user.go": 'package main\nfunc getUserData() string { return "user" }\n',
  "backend/auth.go": "package main\nfunc auth() { user := getUserData(); _ = user }\n",
  "frontend/api.ts": "const data = getUserData()\n",
  "a.txt": "one\ntwo\nthree\n",
  "nb.ipynb": NOTEBOOK,
};
