//! Envia's 2-letter department codes (its Queries API `/state?country_code=CO`),
//! keyed by the DIVIPOLA department code. Envia's Geocodes API uses other
//! codes for five departments; these are the ones its Shipping API accepts.

const CODES: &[(&str, &str)] = &[
    ("05", "AN"), // Antioquia
    ("08", "AT"), // Atlántico
    ("11", "DC"), // Bogotá D.C.
    ("13", "BL"), // Bolívar
    ("15", "BY"), // Boyacá
    ("17", "CL"), // Caldas
    ("18", "CA"), // Caquetá
    ("19", "CU"), // Cauca
    ("20", "CE"), // Cesar
    ("23", "CO"), // Córdoba
    ("25", "CN"), // Cundinamarca
    ("27", "CH"), // Chocó
    ("41", "HU"), // Huila
    ("44", "LG"), // La Guajira
    ("47", "MA"), // Magdalena
    ("50", "ME"), // Meta
    ("52", "NA"), // Nariño
    ("54", "NS"), // Norte de Santander
    ("63", "QU"), // Quindío
    ("66", "RI"), // Risaralda
    ("68", "SN"), // Santander
    ("70", "SU"), // Sucre
    ("73", "TO"), // Tolima
    ("76", "VC"), // Valle del Cauca
    ("81", "AR"), // Arauca
    ("85", "CS"), // Casanare
    ("86", "PU"), // Putumayo
    ("88", "SA"), // San Andrés y Providencia
    ("91", "AM"), // Amazonas
    ("94", "GU"), // Guainía
    ("95", "GA"), // Guaviare
    ("97", "VA"), // Vaupés
    ("99", "VI"), // Vichada
];

pub fn abbreviation(state_code: &str) -> Option<&'static str> {
    CODES.iter().find(|(divipola, _)| *divipola == state_code).map(|(_, envia)| *envia)
}
