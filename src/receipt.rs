//! A ticket's receipt, downloaded from the history: exactly the body of
//! `GET /api/sales/{sale_id}/receipt` (the signed sale, its commitment
//! and its proofs on the public record), which `eldorado verify
//! receipt.json --key HEX [--witness VKEY]...` checks offline.

use wasm_bindgen::{JsCast, JsValue};

pub fn file_name(sale_id: u64) -> String {
    crate::text::around("eldorado-receipt-", sale_id, ".json")
}

/// Hands `json` to the browser as a file download.
pub fn download(json: &str, sale_id: u64) -> Result<(), JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(json));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/json");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let link: web_sys::HtmlAnchorElement =
        crate::dom::document()?.create_element("a")?.dyn_into()?;
    link.set_href(&url);
    link.set_download(&file_name(sale_id));
    link.click();
    // The click has handed the blob to the download; the URL would
    // otherwise keep it in memory for the page's whole life.
    web_sys::Url::revoke_object_url(&url)
}

#[cfg(test)]
mod tests {
    #[test]
    fn file_name_names_the_sale() {
        assert_eq!(super::file_name(42), "eldorado-receipt-42.json");
    }
}
