import CDlibFace
