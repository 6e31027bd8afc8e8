#include <ft2build.h>
#include FT_FREETYPE_H

/// Loads `code` and renders it as an 8-bit coverage bitmap in `face->glyph` (FT_LOAD_RENDER is
/// a macro Swift cannot import); 0 on success.
static inline int vigil_ft_render(FT_Face face, unsigned long code) {
    return FT_Load_Char(face, code, FT_LOAD_RENDER);
}
